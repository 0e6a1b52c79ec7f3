# Shows: BUILD_TUPLE_UNPACK_WITH_CALL (3.8 only).
def f(g, a, b):
    return g(*a, *b)
