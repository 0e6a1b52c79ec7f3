# Shows: the simplest function. Fails on 3.8 only: the renderer calls ast.unparse (3.9+).
def f(x):
    return x + 1
