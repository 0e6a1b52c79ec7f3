# Shows: SETUP_FINALLY-based try/except (3.8-3.10) is not structured yet.
def f(g, h):
    try:
        g()
    except ValueError:
        h()
