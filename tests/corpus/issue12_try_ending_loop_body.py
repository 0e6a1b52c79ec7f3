"""A try statement last in a loop body whose body ends with an if: the jump back to the loop
head after the body is not protected (as a ``continue`` would not be), but it shares the
line of the code before it, and 3.13 copies it for the if's other way round; neither is a
``continue``."""


def init_pathinfo(paths, exists, makepath):
    d = set()
    for item in paths:
        try:
            if exists(item):
                _, itemcase = makepath(item)
                d.add(itemcase)
        except TypeError:
            continue
    return d


def last_if(items, f, g):
    for x in items:
        try:
            if f(x):
                g(x)
        except ValueError:
            continue
    return items
