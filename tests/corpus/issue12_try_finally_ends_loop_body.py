"""3.9: a ``try``/``finally`` that ends a loop body (unittest.loader.TestLoader._find_tests):
the jump after the normal path's copy of the finally body goes to the loop head, threaded
from the back edge; it read as a ``continue`` at the end of the try body. A written
``continue`` there leaves the statement's own exit dead after it."""


def ends_body(self, paths, g, h):
    for path in paths:
        if path:
            try:
                g(path)
            finally:
                h(path)


def written_continue(paths, g, h, k):
    for path in paths:
        if g(path):
            try:
                k(path)
                continue
            finally:
                h(path)
        k(0)
