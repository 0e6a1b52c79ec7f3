"""3.9: ``return v`` in a try whose finally body is (or ends with) a try/except
(importlib.reload, runpy.run_path, threading.Condition.wait): the return path's copy of the
finally body returns at each way out, and the copy of the exit nothing reaches is left
out, so the copy ends before the handler's last RERAISE has its counterpart; and 3.9's
RERAISE has no argument, where the copy matching expected 0. It read as the body inlined
into the try, with a stray ``raise`` after the statement."""


def cleanup_after_return(x, g, E):
    try:
        return x
    finally:
        try:
            g()
        except E:
            pass


def wait(self, waiter, timeout, gotit):
    try:
        if timeout is None:
            gotit = waiter.acquire()
        else:
            gotit = waiter.acquire(True, timeout)
        return gotit
    finally:
        self._acquire_restore()
        if not gotit:
            try:
                self._waiters.remove(waiter)
            except ValueError:
                pass
