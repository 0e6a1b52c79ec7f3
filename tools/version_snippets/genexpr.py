# Shows: a generator expression. 3.15 moved GET_ITER into the genexpr code itself
# (LOAD_FAST .0; GET_ITER before RETURN_GENERATOR) instead of the caller.
def f(xs):
    return list(x for x in xs)
