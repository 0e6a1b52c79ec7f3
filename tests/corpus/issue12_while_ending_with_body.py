"""A ``while`` that ends a ``with`` body (found on 3.10, queue.join and _pyio's _readinto):
3.10 copies the with's exit call and the code after it (a short return) into each way out
of the loop, so the top test's exit and the bottom test's were different blocks, and the
copy after the bottom test read as a ``return`` inside the with."""


def join(q):
    with q.mutex:
        while q.unfinished:
            q.all_tasks_done.wait()


def readinto(self, buf):
    written = 0
    with self._read_lock:
        while written < len(buf):
            written += 1
    return written
