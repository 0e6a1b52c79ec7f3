"""``if c: rest-of-body`` ending a for loop body inside a handler's range (a generator's body):
3.12+ threads the test's jump to the loop head, and the compiler's jump (no location) is left
out of the exception table while a written ``continue`` is not. So the split range, not only
a test whose ``not`` would fold (``not in``), tells the if from ``if not c: continue``."""


def rlistdir(names, include_hidden, ishidden, join):
    for x in names:
        if include_hidden or not ishidden(x):
            yield x
            path = join(x) if x else x


def find_body(part, start):
    candidate = None
    for subpart in part.iter_parts():
        if subpart["content-id"] == start:
            candidate = subpart
            break
    yield candidate


def written_continue(items, f):
    for x in items:
        if not f(x):
            continue
        yield x
