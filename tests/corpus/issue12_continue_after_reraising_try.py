"""`continue` after a try statement whose handlers all re-raise, ending an if body that has an
else (3.9): the try body's exit is threaded to the loop head, so the continue and the jump over
the else after it are both dead; the dead jump over the else says the continue was written
there (issue 12)."""


def compile_all(self, sources, spawn, error):
    for src in sources:
        if src in self.c_extensions:
            opt = 1
        elif src in self.rc_extensions:
            try:
                spawn(src)
            except error as msg:
                raise RuntimeError(msg)
            continue
        elif src in self.mc_extensions:
            spawn(2)
            continue
        else:
            raise RuntimeError(src)
        spawn(opt)
