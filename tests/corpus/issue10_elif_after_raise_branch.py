"""An if branch ending in `raise` whose inner branch jumps past a following elif (found by
python-dateutil's suite on decompiled dateutil: parser._ampm_valid).

Read as separate ifs, the inner branch fell into the elif's test. 3.12+ copy the `return`
after the chain into the inner branches: the last test's jump to the end reads as falling off
the function, and the return was lost."""


def ampm_valid(hour, fuzzy):
    ok = True
    if hour is None:
        if fuzzy:
            ok = False
        else:
            raise ValueError('no hour')
    elif not 0 <= hour <= 12:
        if fuzzy:
            ok = False
        else:
            raise ValueError('bad hour')
    return ok


def elif_after_return_branch(a, b, c):
    if a:
        if b:
            a = b
        else:
            return 0
    elif c:
        a = c
    return a
