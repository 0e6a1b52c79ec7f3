# min-python: 3.11
"""except* for exception groups."""


def groups(f, g):
    try:
        f()
    except* ValueError as eg:
        g(eg)
    except* (KeyError, TypeError):
        g()
