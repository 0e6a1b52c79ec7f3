# min-python: 3.10
# max-python: 3.10
"""try/finally whose finally body has branches (a nested try/except, an if), on 3.10 (issue
12). The normal path's copy of the finally body ends each way out with what follows it: the
code after the statement when that is a short block that returns (3.10 copies it there and
drops the original, so it is emitted after the statement), or the RETURN_VALUE of `return v`
ending the try body. A nested try in the finally body is never split at one of its copied
exits. (Bounded to 3.10: 3.8/3.9 and 3.11+ still miss some of these shapes.)"""


def code_after_copied(cmd, os, name):
    try:
        status = os.system(cmd)
        if status:
            raise ValueError(status)
        stdout = b''
    finally:
        try:
            os.unlink(name)
        except OSError:
            pass
    return stdout


def nested_try_only(os, name):
    try:
        stdout = os.system()
    finally:
        try:
            os.unlink(name)
        except OSError:
            pass
    return stdout


def returned_value(self, waiter, timeout):
    gotit = False
    try:
        if timeout is None:
            waiter.acquire()
            gotit = True
        else:
            gotit = waiter.acquire(False)
        return gotit
    finally:
        self.restore()
        if not gotit:
            try:
                self.waiters.remove(waiter)
            except ValueError:
                pass


def two_returns(self, source, parser, make):
    # (the finally body's copies are read one by one here: it has one way out of the try)
    close = False
    if not hasattr(source, "read"):
        source = open(source, "rb")
        close = True
    try:
        if parser is None:
            parser = make()
            if hasattr(parser, "whole"):
                self.root = parser.whole(source)
                return self.root
        self.root = parser.close()
        return self.root
    finally:
        if close:
            source.close()
