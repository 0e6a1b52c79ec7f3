"""A `try`/`finally` that ends the function, whose finally body ends with a `try`/`except`:
the normal exit's copy of the finally body ends each way out with the implicit `return None`,
and the nested try's cleanup (`COPY 3; POP_EXCEPT; RERAISE 1`) is the last thing in both
copies, so it is compared, not taken for the finally body's own re-raise (3.11+; issue 12)."""


def close(self):
    if self.dict is None:
        return
    try:
        self.sync()
    finally:
        try:
            self.dict = self.closed_dict()
        except:
            self.dict = None


def close_named(self):
    try:
        self.flush()
    finally:
        try:
            self.stream.close()
        except OSError as exc:
            self.errors.append(exc)
