# min-python: 3.10
"""An if whose whole body is a while loop (found by CPython's test_shlex on decompiled shlex).

The if's test and the while's top test both jump past the loop, so the two tests read like
one `if a and b:` condition whose body ends in a backward jump; a while loop's head starts the
if's body instead (3.14+, which test a while at the top only, any loop head). 3.8/3.9 lay it
out with an absolute jump, not rebuilt yet (the function is a marked stub there), hence the
bound."""


def if_then_only_while(s, raw):
    if s:
        while raw:
            raw = s.g()
    return raw


def if_then_only_while_at_end(s, raw):
    if s.source is not None:
        while raw == s.source:
            raw = s.get_token()


def if_then_only_while_then_while(s, raw):
    if s.source is not None:
        while raw == s.source:
            spec = s.hook(s.read_token())
            if spec:
                s.push(spec)
            raw = s.get_token()
    while raw == s.eof:
        if not s.filestack:
            return s.eof
        else:
            s.pop_source()
            raw = s.get_token()
    return raw


def if_and_while_and(a, b, c):
    if a and b:
        while b and c:
            b -= 1
    return b
