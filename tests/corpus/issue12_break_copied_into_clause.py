# min-python: 3.11
"""A ``break`` in an except clause of an endless ``while`` whose target, the small exit block
after the loop, 3.12+ copied into the clause after its POP_EXCEPT and dropped (only breaks
reached it): the copy computes its value after unwinding, so it is the code after the loop,
not a ``return`` written in the clause (unittest.util.sorted_list_difference,
tomllib.loads, _pyio.FileIO.readall). A constant return reads the same both ways; a try
around the loop has its clauses after the loop, not in it."""


def sorted_difference(expected, i):
    missing = []
    while True:
        try:
            e = expected[i]
            i += 1
            missing.append(e)
        except IndexError:
            missing.extend(expected[i:])
            break
    return missing, i


def read_all(fd, result, bufsize):
    while True:
        if len(result) >= bufsize:
            bufsize += len(result)
        try:
            chunk = read(fd, bufsize)
        except BlockingIOError:
            if result:
                break
            return None
        if not chunk:
            break
        result += chunk
    return bytes(result)


def loads(src, pos):
    while True:
        pos = skip(src, pos)
        try:
            char = src[pos]
        except IndexError:
            break
        if char == "\n":
            pos += 1
            continue
        pos = rule(src, pos)
        try:
            char = src[pos]
        except IndexError as exc:
            note(exc)
            break
        pos += 1
    return out.data


def constant_after(items, i):
    while True:
        try:
            i = items[i]
        except IndexError:
            log(i)
            break
    return 5


def raise_after(items, i):
    while True:
        try:
            i = items[i]
        except KeyError:
            break
    raise LookupError(i)


def try_around(gen, features):
    try:
        while True:
            tp = gen()
            if tp:
                break
            features.add(tp)
    except StopIteration:
        pass
    return frozenset(features)
