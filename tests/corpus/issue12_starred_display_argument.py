"""A call whose positional arguments are one starred list or tuple display, ``f(*[a, b])``
/ ``f(*(a, b))``: read as ``f(a, b)``, which compiles to a plain call (every version;
transformers' RTDetrResNetEmbeddings: ``nn.Sequential(*[layer, layer, layer])``). Generated
code (the lens) keeps the plain spelling."""


def starred_list(f, a, b, c):
    return f(*[a(), b, c])


def starred_tuple(f, a, b):
    return f(*(a, b))


def starred_list_with_keyword(f, a, b, k):
    return f(*[a, b], key=k)


def plain_forms(f, a, b, k, kw):
    f(a, *b)
    f(a, b, **kw)
    f(*b, **kw)
    f(a, *b, key=k)
    return f(*b)
