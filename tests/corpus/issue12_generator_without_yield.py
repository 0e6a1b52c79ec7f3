"""Generators whose every `yield` the compiler dropped as unreachable (issue 12): the code
object keeps the generator flag with no yield left in it; the output ends with `if False:
yield`, which compiles to nothing and keeps the flag."""


class Iterable:
    def __iter__(self):
        while False:
            yield None


def returns_first(self):
    return
    yield


async def async_generator_without_yield():
    return
    yield


def nested_generator_kept(items):
    def inner():
        yield from items
    return inner
