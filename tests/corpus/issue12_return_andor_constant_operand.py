"""``if c: return -1`` then ``return x and 1 or 0``: 3.12/3.13 write a returned constant as
RETURN_CONST, so ``LOAD_CONST; RETURN_VALUE`` marks a return split out of a conditional
expression, unless the RETURN_VALUE is jumped to: then the constant is the last operand of
an and/or, and the if stays a statement."""


def cmp(self, other):
    diff = self - other
    if diff.days < 0:
        return -1
    return diff and 1 or 0


def folded(c, x):
    return 0 if c else x
