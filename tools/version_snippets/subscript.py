# Shows: a[i] is BINARY_OP with the subscript operator on 3.14+ ("unknown binary operator []").
def f(a, i):
    return a[i]
