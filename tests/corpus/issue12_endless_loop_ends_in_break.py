"""3.8/3.9: ``while True:`` whose body ends in a ``break`` after a try whose clause
``continue``s (multiprocessing.shared_memory.SharedMemory.__init__): the loop's back edge
is dead, so the clause's ``continue`` was taken for it and the loop ended there."""


def retry_name(self, g, h):
    while True:
        name = g()
        try:
            self._fd = h(name)
        except FileExistsError:
            continue
        self._name = name
        break
    return name
