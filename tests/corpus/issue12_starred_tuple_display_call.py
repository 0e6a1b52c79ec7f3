"""``f(*(a, *b), **k)`` (unittest.IsolatedAsyncioTestCase.addAsyncCleanup): 3.8 builds the
tuple display with BUILD_TUPLE_UNPACK and hands it to the call as it is, where
``f(a, *b)`` builds its arguments with BUILD_TUPLE_UNPACK_WITH_CALL; it read as the
latter."""


def add_cleanup(self, func, /, *args, **kwargs):
    self.addCleanup(*(func, *args), **kwargs)


def plain(self, func, *args):
    self.addCleanup(func, *args)
    x = (func, *args)
    self.h(*x)
