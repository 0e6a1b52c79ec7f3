# min-python: 3.11
"""A try/finally that ends a function, with a loop in its finally body (issue 10).

3.10's legacy SETUP_FINALLY form of this shape is not rebuilt yet (3.8 and 3.9 are)."""


def finally_with_while(a):
    try:
        a.run()
    finally:
        while a.ok:
            a.close()


def finally_with_for(a):
    try:
        a.run()
    finally:
        for item in a.items:
            item.close()

