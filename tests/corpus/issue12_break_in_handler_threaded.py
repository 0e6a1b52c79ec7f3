# min-python: 3.11
"""A ``break`` in an except clause of a ``for`` loop that ends a ``while`` body (found on 3.14,
concurrent.futures.process shutdown_workers): the clause is laid out after everything and
3.14 threads the break (pop the iterator, jump to the loop's exit) straight to the while's
head, which has no bottom test; the walker read it as ``pass``. 3.8-3.10 raise "unstructured
jump" on it (on main too, their own template; left alone): the file runs from 3.11 on."""


def shutdown_workers(self, stop):
    sent = 0
    while sent < stop and self.alive() > 0:
        for i in range(stop - sent):
            try:
                self.put_nowait(None)
                sent += 1
            except LookupError:
                break
