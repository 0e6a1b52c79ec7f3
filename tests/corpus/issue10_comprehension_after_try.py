"""An inline comprehension (3.12+) right after a try statement: 3.13 leaves the comprehension's
cleanup in place and jumps over it (types.py did not decompile as a whole)."""
try:
    raise TypeError
except TypeError as exc:
    KIND = type(exc)
NAMES = [n for n in globals() if n[:1] != '_']


def after_try(g):
    try:
        raise TypeError
    except TypeError:
        t = 1
    a = [n for n in g if n]
    return (a, t)
