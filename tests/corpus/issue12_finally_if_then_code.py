# max-python: 3.11
"""A `try`/`finally` whose finally body is an `if`, followed by more code: the handler's copy
of the finally body ends each branch with its own RERAISE, while the normal exit's copy has one
jump past the handler that both branches reach (3.11; issue 12). 3.12+ lay the code after the
try out differently (not read yet: bench/baselines/3.12.json, pkgutil.py ImpLoader.load_module),
and 3.10 does not yet read an `elif` in such a finally body."""


def load_module(self, fullname):
    self.reopen()
    try:
        mod = self.load(fullname, self.file)
    finally:
        if self.file:
            self.file.close()
    return mod


def spawn(argv, restore, mode):
    try:
        status = argv.run()
    finally:
        if restore and mode is not None:
            argv.restore(mode)
    argv.close()
    return status
