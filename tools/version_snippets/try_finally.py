# Shows: SETUP_FINALLY-based try/finally (3.8-3.10).
def f(g, h):
    try:
        g()
    finally:
        h()
