"""A chained comparison as the last operand of a returned and/or: 3.12+ copies the return
into the chain after its final comparison, and the cleanup falls into the and/or's join (the
original return), so the operand ends at the join."""


def isxdigit(c):
    return isdigit(c) or 65 <= ord(c) <= 70 or 97 <= ord(c) <= 102


def ishex(c):
    return "0" <= c <= "9" or "a" <= c <= "f" or "A" <= c <= "F"


def both(a, b, c):
    return a and b < c < 10


def same_none(a, b, c):
    return a is b is c is None
