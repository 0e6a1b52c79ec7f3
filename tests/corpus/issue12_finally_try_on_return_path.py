# min-python: 3.10
"""A try/finally whose finally body holds a try/except, copied onto the return path, and whose
body holds a try whose clause raises: 3.12+ lays that clause out between the return's copy
and the copy's own clause, and the finally handler also protects its cleanup there, so the
protected range seemed to end in the cold code (importlib.reload)."""


def reload(name, module):
    _RELOADING[name] = module
    try:
        if name:
            try:
                parent = modules[name]
            except KeyError:
                raise ImportError(name) from None
            else:
                pkgpath = parent.__path__
        else:
            pkgpath = None
        g(pkgpath)
        return modules[name]
    finally:
        try:
            del _RELOADING[name]
        except KeyError:
            pass
