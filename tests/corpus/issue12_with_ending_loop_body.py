"""A ``with`` that ends a loop body (found on 3.9, distutils' build_ext
_build_extensions_serial): 3.9 leaves it through the exit call and a jump threaded straight
back to the loop head, which read as a ``continue`` inside the with body."""


def serial(self):
    for ext in self.extensions:
        with self._filter_build_errors(ext):
            self.build_extension(ext)


def tested(self, q):
    while q.pending:
        with q.mutex:
            q.pending -= 1
    return q
