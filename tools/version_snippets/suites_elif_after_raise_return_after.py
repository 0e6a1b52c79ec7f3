# Shows: if/elif whose branches end `else: raise`, then a return: 3.12+ copy the return into
# the inner branches; the elif becomes a separate if; marked not exact (dateutil
# parser._ampm_valid: 10 of 2,031 dateutil tests lost on 3.13). Fixed for 3.8-3.11.
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
