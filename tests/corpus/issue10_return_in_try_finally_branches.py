# min-python: 3.11
"""``try: return v`` whose finally body has branches or a loop: the value is computed under the
handler and each way out of the normal exit's copy of the finally body returns it (3.11+;
3.8-3.10 lay the finally out with SETUP_FINALLY)."""


def finally_with_if_else(x, y):
    try:
        return x
    finally:
        if y:
            print(1)
        else:
            print(2)


def finally_with_if(x, y):
    try:
        return x.value()
    finally:
        if y:
            y.close()


def finally_with_loop(x, items):
    try:
        return x + 1
    finally:
        for item in items:
            item.close()
