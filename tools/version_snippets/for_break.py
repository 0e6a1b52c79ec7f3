# Shows: for with break (3.10: FOR_ITER target; 3.12-3.14: END_FOR not handled).
def f(xs, n):
    for x in xs:
        if x >= n:
            break
    return xs
