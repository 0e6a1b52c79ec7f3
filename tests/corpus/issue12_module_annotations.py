"""Module-level annotations between other statements, in blocks and in dead code (found on
3.14, _pyrepl.main and _colorize). 3.14 numbers every module-level annotation (and each one
inside a block of a class body) and records where it ran, ``__conditional_annotations__``;
the decompiler put them all at the start of the body instead of where they ran."""

import os

CAN_USE: bool
REASON: str
try:
    if not os.sep:
        raise RuntimeError("no separator")
except Exception as e:
    CAN_USE = False
    REASON = f"warning: {e}"
else:
    CAN_USE = True
    REASON = ""

limit: int = 5
if os.name:
    name: str

# types
if False:
    from typing import IO
    _theme: IO


class Conditional:
    a: int
    if os.name:
        b: int = 3
    c: str
