"""An ``if`` ending a loop body whose first statement computes an and/or value inside an
operation (found on 3.14/3.13, selectors.*Selector.select): 3.12+ make the if's test jump
back to the loop head, and the and/or value in the body was read as more of the test
("unrecognised and/or expression")."""


def select(rw, r, w, get, ready, read, write):
    for fd in rw:
        key = get(fd)
        if key:
            events = ((fd in r and read)
                      | (fd in w and write))
            ready.append((key, events & key.events))
    return ready


def one_operand(rw, r, key, b):
    for fd in rw:
        if key:
            events = (fd in r and key) | b
