"""`if <membership or identity test>: <no fall-through>` ending a for body. 3.12+ threads the
if's end to the loop head and writes that backward jump as the inverted test over the loop's
last back edge: read as `if not c: continue`, `not (a in b)` would compile as `a not in b`."""


def membership(items, seen):
    for item in items:
        if item in seen:
            return False
    return True


def not_membership(items, seen):
    for item in items:
        if item not in seen:
            raise KeyError(item)
    return seen


def identity(items):
    for item in items:
        if item is not None:
            return item
    return None


def asserted(mapping):
    for key, value in list(mapping.items()):
        assert type(key) is str, key
        assert type(value) is str, value


def written_continue(items, seen):
    for item in items:
        if item not in seen:
            continue
        return False
    return True


def returns_one_then_true(items, seen):
    # `return 1` inside the loop is no copy of the `return True` after it (1 == True)
    for item in items:
        if item in seen:
            return 1
        elif item is None:
            return 2
    return True


def breaks_with_else(names, wanted):
    for name in names:
        if name in wanted:
            found = name
            break
    else:
        return None
    return found


def nested_if_ends_body(result, parents):
    seen = {}
    for elem in result:
        if elem in parents:
            parent = parents[elem]
            if parent not in seen:
                seen[parent] = None
                yield parent
