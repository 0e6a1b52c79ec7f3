# Shows: CALL_FUNCTION_EX (3.8-3.10 stack underflow; 3.14+ internal TypeError: its oparg is
# None there).
def f(g, a, k):
    return g(*a, **k)
