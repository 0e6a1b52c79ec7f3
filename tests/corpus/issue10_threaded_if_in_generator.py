"""An if ending a loop body in a generator (more_itertools.windowed): 3.12+ thread the if's
end to the loop head and leave that jump out of the generator's exception table, unlike a
written `continue`, so the two forms differ there."""


def threaded_if(seq, step):
    i = 0
    for _ in seq:
        i -= 1
        if not i:
            i = step
            yield i


def written_continue(seq, step):
    i = 0
    for _ in seq:
        i -= 1
        if i:
            continue
        i = step
        yield i


def in_try(seq, step):
    i = 0
    try:
        for _ in seq:
            i -= 1
            if not i:
                i = step
                print(i)
    except ValueError:
        pass
    return i
