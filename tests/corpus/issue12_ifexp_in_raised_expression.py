"""A conditional expression inside a raised expression: 3.12+ copies the rest of the raise
(the call, RAISE_VARARGS) into both branches, as it does for a returned one."""


def check_closed(self, msg=None):
    if self.closed:
        raise ValueError("I/O operation on closed file." if msg is None else msg)


def raise_from(kind, exc):
    raise TypeError("bad %s" % ("key" if kind else "value")) from exc
