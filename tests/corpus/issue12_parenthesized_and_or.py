"""A value ``and``/``or`` whose left operand is one of the same kind in parentheses,
``(a and b) and c``: from 3.12 the inner one's jumps land on the outer one's test (3.11
threads them to the end, like a flat chain's), and it was read as the flat ``a and b and c``
(3.12/3.13: not exact; torch.sparse._triton_ops check_blocksize)."""


def left_nested_and(a, b, c):
    r = (a and b) and c
    return r


def left_nested_or(a, b, c):
    r = (a or b) or c
    return r


def both_nested(a, b, c, d):
    r = (a and b) and (c and d)
    return r


def in_loop(b, is_power_of_two):
    res = True
    for blocksize in b:
        res = (blocksize >= 16 and is_power_of_two(blocksize)) and res
    return res


def flat(a, b, c):
    return a and b and c
