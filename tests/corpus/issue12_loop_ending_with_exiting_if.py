"""A loop body that ends with ``if <test>: <leave>`` (found on 3.14: queue.Queue.get,
random.gammavariate, ftplib.FTP.getmultiline). 3.14 tests a ``while`` at the top only and
lays the if's body out after the loop's back edges; a test of several jumps (``and``/``or``)
read as ``if not test: continue`` with nothing leaving the loop, and a body that raises was
read as code after the loop."""


def raise_and(q):
    while not q():
        q.wait()
        if q.s and not q():
            raise LookupError
    return 1


def raise_one(q):
    while not q():
        q.wait()
        if q.s:
            raise LookupError
    return 1


def true_return_or(random, a):
    while True:
        u1 = random()
        if u1 < 1e-7:
            continue
        z = u1 * 2
        if z >= 0.0 or u1 >= a(z):
            return z * a


def true_break_and(self):
    line = self.getline()
    if line[3:4] == '-':
        code = line[:3]
        while 1:
            nextline = self.getline()
            line = line + ('\n' + nextline)
            if nextline[:3] == code and \
                    nextline[3:4] != '-':
                break
    return line


def assert_in_try(cls, pending):
    # (weakref.finalize._exitfunc) the top test leaves by a jump of its own
    try:
        while True:
            if not pending:
                break
            f = pending.pop()
            assert f not in cls._registry
    finally:
        cls.x = 1


def else_raises(self, rest, d):
    # (logging.config cfg_convert) the raise is the else of an if whose body goes back
    while rest:
        m = self.match(rest)
        if m:
            d = d[m.groups()[0]]
        if m:
            rest = rest[m.end():]
        else:
            raise ValueError('Unable to convert %r' % (rest,))
    return d
