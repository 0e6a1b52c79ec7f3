"""Class definitions."""
import abc


class Plain:
    """A docstring."""
    attribute = 1

    def method(self, x):
        return self.attribute + x


class Derived(Plain, metaclass=abc.ABCMeta):

    def method(self, x):
        return super().method(x) * 2

    @property
    def prop(self):
        return self.__private

    @classmethod
    def make(cls, *args):
        return cls(*args)

    @staticmethod
    def helper(a, b=1):
        return a + b

    class Nested:

        def __init__(self):
            self.value = __class__
