"""try/except/else whose else cannot fall through (issue 12). 3.10 replaces a jump to a small
block that returns or raises by a copy of it: an else of `raise E(...)` sits right after the
try body then (as a short returning else did already), and when the code after the try is
copied into the clauses instead, the body's jump goes to the else alone, which runs to the
end."""


def else_raises(self):
    try:
        self.throw(GeneratorExit)
    except (GeneratorExit, StopIteration):
        pass
    else:
        raise RuntimeError('generator ignored GeneratorExit')


async def else_raises_async(self):
    try:
        await self.athrow(GeneratorExit)
    except (GeneratorExit, StopAsyncIteration):
        pass
    else:
        raise RuntimeError('ignored GeneratorExit')


def long_else_returns(x, b, c, d, e):
    try:
        a = x()
    except OSError:
        b()
    else:
        c(a)
        return d(a)
    return e()


def else_returns_with_after(open_, fd):
    try:
        master, slave = open_()
    except (AttributeError, OSError):
        pass
    else:
        name = fd(slave)
        fd(name, slave)
        return master, name
    return fd()
