"""A for/else that ends an except clause, whose ``break`` leaves the clause (found on 3.13
and 3.14, inspect's _getmembers): 3.13+ copies the clause's exit (POP_EXCEPT, the jump to
the code after the try) into the break, and the decompiler dropped the break and wrote the
else (``continue``) after the loop."""


def getmembers(object, mro, names, predicate, results):
    for key in names:
        try:
            value = getattr(object, key)
        except AttributeError:
            for base in mro:
                if key in base.__dict__:
                    value = base.__dict__[key]
                    break
            else:
                continue
        if not predicate or predicate(value):
            results.append((key, value))
    return results
