# min-python: 3.12
# max-python: 3.13
"""``type`` statements without type parameters (typing.py's ``type _Func = ...`` made the whole
module fail on 3.12+). 3.14+ give the value's function a ``format`` parameter (PEP 649): not
rebuilt there yet (it raises)."""
from typing import Any, Callable

type Handler = Callable[..., Any]


def local_alias():
    type Pair = tuple[int, int]
    return Pair
