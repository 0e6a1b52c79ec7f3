# max-python: 3.11
# (3.12+ read some of these shapes wrong in other ways: not this fix's)
"""3.8/3.9: ``if test: continue`` last in an if body, with code after the enclosing if
(mailcap.findmatch): the ``continue`` sits right before code a test jumps to, the shape of
an if body's jump over its else (threaded to the loop head), and was read so, unless a
statement nested in the body jumps to that code too (then it follows the if), or the
enclosing if's own test jumps past it into what would be the else (then the else would end
there, and the jump over it go there, not to the loop head)."""


def two_continues(entries, a, b, c, d):
    for e in entries:
        if a(e):
            if b(e):
                continue
            if c(e):
                continue
        d(e)


def findmatch(entries, subst, system, key):
    for e in entries:
        if 'test' in e:
            test = subst(e['test'])
            if test is None:
                continue
            if test and system(test) != 0:
                continue
        command = subst(e[key])
        if command is not None:
            return command, e
    return None, None


def continue_then_call(entries, a, b, c, d):
    for e in entries:
        if a(e):
            if b(e):
                continue
            c(e)
            if d(e):
                continue
        d(e)


def else_up_to_continue(fp, self, e, g, h):
    # (the else of the inner if runs to the `continue` the if body's end was threaded to:
    # configparser.RawConfigParser._read)
    for line in fp:
        value = line.strip()
        if not value:
            if self._empty:
                if e:
                    g(value)
            else:
                indent_level = 5
            continue
        h(value)


def break_in_while_else(prefix):
    # (a while's test jumps past the break too: sre_compile._generate_overlap_table)
    table = [0] * len(prefix)
    for i in range(1, len(prefix)):
        idx = table[i - 1]
        while prefix[i] != prefix[idx]:
            if idx == 0:
                table[i] = 0
                break
            idx = table[idx - 1]
        else:
            table[i] = idx + 1
    return table


def continue_then_elif_chain(opcodes, put, get, newids, w):
    # (the jump past the elif chain goes to code, not back to the loop head)
    for op, arg in opcodes:
        if op is put:
            if arg not in newids:
                continue
            data = 1
        elif op is get:
            data = 2
        else:
            data = 3
        w(data)
