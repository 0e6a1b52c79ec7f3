# max-python: 3.11
"""A chained comparison whose value goes straight to a small exit (`return a <= b <= c`):
3.8/3.9 replace the jump to the return by the return, 3.10 copies that exit block in place of
the jump past the chain's cleanup, so the cleanup falls into the original exit instead of being
jumped over (issue 12). 3.12+ copy the exit too, in their own chain template (not read yet;
see bench/baselines/3.12.json)."""


def returned(c):
    return 0 <= ord(c) <= 127


def stored_then_returned(c, low):
    x = low <= ord(c) < 256
    return x


def three_links(a, b, c, d):
    return a < b < c < d


def in_condition(a, b, c):
    if a < b < c:
        return 1
    return 2
