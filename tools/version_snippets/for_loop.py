# Shows: a for loop (3.13+: END_FOR + POP_TOP / POP_ITER at the loop exit, stack underflow).
def f(xs, g):
    for x in xs:
        g(x)
