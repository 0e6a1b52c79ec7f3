"""``if a < b < c: return x`` on one line after the same ``return x`` (stringprep.in_table_a1):
the final test's jump over the chain's cleanup goes to the body, which ExitBlocks took for
a compiler's copy of the earlier return (same code, no line of its own) and skipped, so the
body's jump read as going past the if ("backward conditional jump outside a loop", 3.8, 3.9
and 3.11). 3.8-3.11 copy no such block there."""


def in_table(code, category):
    if category(code) != 'Cn': return False
    c = ord(code)
    if 0xFDD0 <= c < 0xFDF0: return False
    return (c & 0xFFFF) not in (0xFFFE, 0xFFFF)


def returns_name(a, b, c):
    if a: return b
    if 1 <= c < 2: return b
    return c
