"""A ``while True`` body that ends with ``if test: <statements> else: break`` (found on 3.14,
traceback's increment_until, _markupbase): 3.14 lays the break out where the loop's exit
starts, a line-number NOP the test jumps to, and the decompiler wrote ``if not test: break``
before the statements, which puts the break right after the test."""


def increment_until(lines, lineno, col, stop, nextline, increment):
    while True:
        ch = lines[lineno][col]
        if ch in "\\#":
            lineno = nextline(lineno, col)
        elif not stop(ch):
            lineno = increment(lineno, col)
        else:
            break
    return lineno, col


def spaces(c, j):
    while 1:
        c = c[j]
        if c.isspace():
            j = j + 1
        else:
            break
    print(j)
    return j

