# min-python: 3.11
# max-python: 3.13
"""Choice point else-after-exit (decompiler/choices.py): the code after an if body that
cannot fall through is either the if's else or after the if, and the bytecode alone does not
always say which. 3.11-3.13 read these as no-else / else-to-end by default, the other reading
verifies (3.10 reads the loop differently: not exact either way, hence 3.11+; so does 3.14+,
where `consume` is not exact either way yet)."""


def consume(action, explicit_arg, n):
    while True:
        if action is None:
            return n
        if explicit_arg is not None:
            if n == 0 and explicit_arg != '':
                if n in m:
                    action = m[n]
                else:
                    raise E(action)
            elif n == 1:
                stop = n + 1
                break
            else:
                raise E(action)
        else:
            stop = n
            break
    return stop


def get_data(self, path):
    if isinstance(self, (A, B)):
        with f(path) as file:
            return file.read()
    else:
        with g(path) as file:
            return file.read()
