# Shows: inlined comprehensions (3.12+: LOAD_FAST_AND_CLEAR / SWAP, stack underflow).
def f(xs):
    return [x for x in xs if x]
