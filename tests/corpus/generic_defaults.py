# min-python: 3.13
"""PEP 696 type parameter defaults (3.13+): each default is a lazily evaluated function the
annotation scope attaches with ``CALL_INTRINSIC_2 SET_TYPEPARAM_DEFAULT``."""


def with_default[T = int, *Ts = tuple[str, ...], **P = [int, str]](x: T) -> T:
    return x


class Defaulted[K: str = str, V = list[K]]:
    items: dict[K, V]


type Table[R = dict[str, int]] = list[R]
