# min-python: 3.10
# max-python: 3.13
"""An elif chain that ends a loop body, whose branch ends in continue/break while branches
inside it fall off (found by CPython's test_shlex on decompiled shlex.read_token, which then
looped forever).

3.10/3.11 thread the fall-off of the inner branches to the loop's back edge or head, so the
branch looks like one that always leaves: read as separate ifs, the inner branches would fall
into the next test. 3.14+ is not checked here (no interpreter at hand when this was added)."""


def elif_after_continue_branch(s, it):
    while True:
        c = it.read()
        if s.state is None:
            s.tok = ''
            break
        elif s.state == ' ':
            if c in s.ws:
                s.n += 1
            elif c in s.words:
                s.state = 'a'
            else:
                s.tok = c
                continue
        elif s.state == 'a':
            s.tok += c
            if not c:
                break
    s.finish(c)
    return s


def elif_after_break_branch(s, it):
    while True:
        c = it.read()
        if not c:
            s.state = None
            break
        elif c in s.commenters:
            s.lineno += 1
            if s.posix:
                s.state = ' '
                if s.token:
                    break
                else:
                    continue
        elif s.state == 'c':
            if c in s.punctuation:
                s.token += c
            else:
                s.state = ' '
                break
        elif s.posix and c in s.quotes:
            s.state = c
        else:
            s.token += c
    s.finish(c)
    return s

