"""A tested ``while`` whose body ends with a try that only its except clauses leave (``while
n > 1: try: return f() / except E: n -= 1``, a retry loop): from 3.12 the bottom test is laid
out with the handler, after everything, and a conditional jump back from cold code was never
taken for a loop ("backward conditional jump outside a loop"; torch.testing retry,
EtcdServer._wait_for_ready)."""


def retry(f, n, E, g):
    while n > 1:
        try:
            return f()
        except E as e:
            g(e)
            n -= 1
    return f()


def wait_for_ready(f, c, t, h, s, X, Y):
    while t() < c:
        if f():
            raise X
        try:
            h()
            return
        except Exception:
            s(1)
    raise Y


def retry_falls_off(f, n, E):
    while n > 1:
        try:
            return f()
        except E:
            n -= 1
