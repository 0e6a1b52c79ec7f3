# min-python: 3.12
"""PEP 695 type parameters: each generic ``def``, ``class`` and ``type`` runs in an annotation
scope (``<generic parameters of X>``), which used to stand in the output as a function made
from its marshalled code. Bounds, constraints, ``*Ts`` and ``**P``, defaults and keyword-only
defaults (the scope's ``.defaults``/``.kwdefaults``), decorators, bases and keywords, and
scopes that close over a function's variables."""
from typing import Callable


def identity[T](value: T) -> T:
    return value


async def fetch[T](source: Callable[[], T]) -> T:
    return source()


def bounded[N: int, S: (str, bytes)](n: N, s: S, *, repeat: int = 2, sep: S = None) -> list[S]:
    return [s] * (n * repeat)


def variadic[*Ts, **P](f: Callable[P, tuple[*Ts]], *args: P.args, **kwargs: P.kwargs):
    return f(*args, **kwargs)


def remember(f):
    return f


@remember
def decorated[T](x: T, y=len, *rest: T) -> T:
    return x


class Box[T]:
    value: T

    def __init__(self, value: T) -> None:
        self.value = value

    def map[U](self, f: Callable[[T], U]) -> "Box[U]":
        return Box(f(self.value))


class Registry[K: str, V](dict[K, V], metaclass=type):
    """Bases and keywords as written; the compiler adds Generic[K, V] after them."""

    def first(self) -> K | None:
        return next(iter(self), None)


type Pair[T] = tuple[T, T]
type Nested[T: int, *Ts] = dict[T, tuple[*Ts]]


def factory(kind, default):
    class Local[T](kind):
        fallback = default

        def get(self, key: T) -> T:
            return self.get(key, default)

    def local_function[T](x: T = default) -> T:
        return x or default

    type LocalAlias[T] = list[kind | T]
    return Local, local_function, LocalAlias
