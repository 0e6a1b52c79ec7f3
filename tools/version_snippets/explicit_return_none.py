# Shows: an explicit "return None" in an else branch (3.9: dropped as if implicit).
def f(a):
    if a:
        return 1
    else:
        return None
