# Shows: f-string with a conversion (CONVERT_VALUE / FORMAT_SIMPLE, 3.13+).
def f(x, y):
    return f"{x!r} and {y}"
