# Shows: yield from (YIELD_FROM on 3.8-3.10; CLEANUP_THROW on 3.12+).
def f(g):
    yield from g()
