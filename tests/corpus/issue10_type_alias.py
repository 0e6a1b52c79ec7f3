# min-python: 3.12
"""``type`` statements without type parameters (typing.py's ``type _Func = ...`` made the whole
module fail on 3.12+)."""
from typing import Any, Callable

type Handler = Callable[..., Any]


def local_alias():
    type Pair = tuple[int, int]
    return Pair
