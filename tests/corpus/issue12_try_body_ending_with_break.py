# min-python: 3.14
"""A try body in a while loop that ends with ``if c: break`` (found on 3.14, ntpath's
_readlink_deep family): the break's line-number NOP and the copy of the return after the loop
lie just past the protected range, and the walker read ``if c: pass`` followed by ``break``.
3.12/3.13 lay it out otherwise and read it wrong another way (left alone): 3.14+ only."""


def break_in_try(path, seen, readlink):
    while path not in seen:
        try:
            path = readlink(path)
            if path:
                break
        except ValueError:
            pass
    return path

