# min-python: 3.11
"""A ``break`` whose jump 3.12+ replaced by a copy of the short exit block after the loop
(a return or a raise; flowgraph.c copies it, line included): in an except clause of a while
loop (after POP_EXCEPT), or in its body; the written return after the loop keeps its line, so
it stays a statement (an implicit one would be copied into each exit)."""


def index(self, value, start=0, stop=None):
    i = start
    while stop is None or i < stop:
        try:
            v = self[i]
        except IndexError:
            break
        if v is value or v == value:
            return i
        i += 1
    raise ValueError


def index_named(self, i):
    while i:
        try:
            v = self[i]
        except IndexError as exc:
            print(exc)
            break
        i = v
    raise ValueError(i)


def search_forward(text, prog, line, col, wrapped=0):
    chars = text.get(line)
    while chars:
        m = prog.search(chars, col)
        if m:
            if col or m.end() > col:
                return line, m
        line = line + 1
        if wrapped and line > col:
            break
        chars = text.get(line)
    return None

