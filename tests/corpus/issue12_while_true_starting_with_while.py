# max-python: 3.13
# (3.14+ tests a while at the top only: the generator's exception table still differs there)
"""``while True:`` whose body starts with a tested ``while``: 3.11+ test a while at the top
and again at the bottom, so both loops start at the inner test; the back edge of the
enclosing loop lies past the inner loop's bottom test, so the enclosing one is built first."""


def line_pairs(line_iterator):
    fromlines, tolines = [], []
    while True:
        while len(fromlines) == 0 or len(tolines) == 0:
            try:
                from_line, to_line = next(line_iterator)
            except StopIteration:
                return
            if from_line is not None:
                fromlines.append(from_line)
            if to_line is not None:
                tolines.append(to_line)
        yield fromlines.pop(0), tolines.pop(0)


def drain(queue, handle):
    while True:
        while queue:
            handle(queue.pop())
        if handle(None):
            break
    return queue
