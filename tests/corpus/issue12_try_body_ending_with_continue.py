# min-python: 3.12
"""A try body in a for loop that ends with ``if not c: continue`` (found on 3.14/3.13, glob's
select_wildcard, concurrent.futures.process _force_shutdown): the jump back lies just past the
protected range, and the walker read ``if not c: pass`` followed by ``continue``. 3.8-3.11
read it wrong another way (on main too; left alone): 3.12+ only."""


def continue_in_try(entries, self):
    for entry in entries:
        try:
            if not entry.is_dir():
                continue
        except OSError:
            continue
        self.x(entry)
