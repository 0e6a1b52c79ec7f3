# min-python: 3.12
"""``type`` statements without type parameters (typing.py's ``type _Func = ...`` made the whole
module fail on 3.12+). 3.14+ evaluate the value lazily: its function takes a positional-only
``.format`` and checks it (PEP 649/749), and 3.15 gives that parameter a default; both read as
the same ``type`` statement."""
from typing import Any, Callable

type Handler = Callable[..., Any]


def local_alias():
    type Pair = tuple[int, int]
    return Pair
