# min-python: 3.11
"""A try/except inside a try/finally, then a return (bdb.Bdb.runcall): 3.12+ lay both
handlers out in the cold code, so no warm code is protected by the finally handler itself;
the except clause jumps back to the finally body's normal-exit copy, which ends the
statement, and the return after it is not part of the try body. A while body with
``if c: ...; break`` before more statements rides along (the lead's second shape)."""


def runcall(self, func, *args):
    res = None
    try:
        try:
            res = func(*args)
        except KeyError:
            pass
    finally:
        self.quitting = True
    return res


def returning_value(items, key):
    i = 0
    while i < len(items):
        if items[i] == key:
            items.pop(i)
            found = key
            break
        i += 1
    return None
