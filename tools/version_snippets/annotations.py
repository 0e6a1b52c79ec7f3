# Shows: 3.14+ __annotate__ functions (LOAD_COMMON_CONSTANT NotImplementedError).
def f(x: int) -> str:
    return str(x)
