# Shows: a and b or c in a return (3.12+: COPY read as a temporary store).
def f(a, b, c):
    return a and b or c
