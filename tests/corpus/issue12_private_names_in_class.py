"""Private names inside a class come back as written (``self.__data``), not in the mangled
form the bytecode keeps (``self._Printer__data``): both compile to the same instructions,
but 3.13+ records the attributes a class's methods assign on ``self`` as written
(``__static_attributes__``). Keyword arguments of calls are not mangled."""


class _Printer(object):
    __slots = 1

    def __init__(self, name, data, __extra=None, *, __flag=False):
        self.__name = name
        self.__data = data
        self.__lines = None
        self.dunder__ = __extra, __flag
        try:
            self.__setup()
        except ValueError as __exc:
            self.__lines = [__exc]
        f(__kw=1)

    def __setup(self):
        global __helper
        return [__y for __y in self.__data if __helper(__y, lambda __q: __q)]

    class __Inner:
        def get(self):
            return self.__value, self._Printer__data


class ___(object):
    def m(self):
        self.__x = 1
