# min-python: 3.11
"""A for loop ending an except clause, whose ``break`` leaves the clause (3.13+ copies the
clause's ``POP_EXCEPT; JUMP`` into the break) and whose ``else`` returns, so the clause
itself ends with no exit of its own to read the break's copy against
(linecache.updatecache)."""


def find(filename, path):
    try:
        stat = g(filename)
    except OSError:
        for dirname in path:
            try:
                stat = g(dirname)
                break
            except ValueError:
                pass
        else:
            return []
    h(stat)
    return stat


def find_raising(filename, path):
    try:
        stat = g(filename)
    except OSError as exc:
        for dirname in path:
            if dirname:
                stat = g(dirname)
                break
        else:
            raise LookupError(filename) from exc
    h(stat)
    return stat
