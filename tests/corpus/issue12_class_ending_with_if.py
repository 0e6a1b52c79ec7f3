"""A class body that ends with an ``if`` (found on 3.14, pathlib.PosixPath): 3.12+ copy the
class epilogue (``__static_attributes__``, ``__classdictcell__``/``__classcell__``, the
return) into the branches that jump to it, and the copies were read as statements of the
if's body."""

import os


class PosixPath(object):
    """Path subclass for non-Windows systems."""
    __slots__ = ()

    if os.name == 'nt':
        def __new__(cls, *args, **kwargs):
            raise NotImplementedError(
                f"cannot instantiate {cls.__name__!r} on your system")


class Chained:
    def f(self):
        self.x = 1

    if os.name == 'nt':
        def g(self):
            return __class__
    elif os.name == 'posix':
        y = 2
    else:
        z = 3
