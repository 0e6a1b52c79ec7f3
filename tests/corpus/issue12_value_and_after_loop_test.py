"""An ``if`` that tests a value at the start of a loop body, whose body starts with an
and/or value (selectors ``SelectSelector.select``): 3.12+ writes the test as a jump over a
jump back to the loop head, folded into one test that jumps back, and the value's first
operand must not be read as a further part of that condition."""


def select(fd_to_key_get, rw, r, w):
    ready = []
    for fd in rw:
        key = fd_to_key_get(fd)
        if key:
            events = (fd in r and EVENT_READ) | (fd in w and EVENT_WRITE)
            ready.append((key, events & key.events))
    return ready


def matches(items, wanted):
    found = []
    while items:
        item = items.pop()
        if item:
            hit = item.name == wanted or item.alias
            found.append(hit)
    return found
