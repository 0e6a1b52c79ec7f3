# Shows: if/elif whose branches end `else: raise`, then a return: 3.12+ copy the return into
# the inner branches, and the last test's jump to the end read as falling off the function
# (dateutil parser._ampm_valid: 10 of 2,031 dateutil tests lost on 3.13). Fixed (the exit the
# top level falls into is written: statements.end_with_detached_exit).
def f(hour, fuzzy):
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
