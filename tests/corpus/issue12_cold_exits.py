"""3.12+ layouts around cold handlers: a `break` in an except clause of a `while True:` (the
jump out of the handler laid out after everything), a with body that ends with
`if c: ...; return` (its exit call copied into the branch, the test jumping to the normal
exit call), and an exit block copied after a clause and after the try's else."""


def read_chunks(self, make):
    while 1:
        self.pending = 1
        try:
            chunk = make(self.file)
        except EOFError:
            break
        chunk.skip()
    if not self.read:
        raise ValueError("missing")


def close(self):
    with self.lock:
        if self.raw is None or self.closed:
            return
    self.flush()


def add_callback(self, fn):
    with self.condition:
        if self.state not in (1, 2):
            self.callbacks.append(fn)
            return
    try:
        fn(self)
    except Exception:
        self.log.exception("callback failed for %r", self)


def seekable(self):
    if self._seekable is None:
        try:
            self.tell()
        except OSError:
            self._seekable = False
        else:
            self._seekable = True
    return self._seekable


