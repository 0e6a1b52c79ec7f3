# min-python: 3.8
"""A nested function that reads ``__class__`` where only functions enclose it: the name is
a variable of the enclosing function (a parameter so named), not the class cell a method
gets, so the wrapper that rebuilds the closure must make it a cell too
(dataclasses._make_annotate_function's ``__annotate__``)."""


def outer(__class__, fields):
    def inner(format):
        for base in reversed(__class__.__mro__):
            fields.append(base)
        return fields
    return inner


class C:
    def m(self):
        def inner():
            return __class__
        return inner
