# min-python: 3.11
"""A tested ``while`` whose body ends with an if/else, the else holding a loop and a ``break``:
3.14 lays the else out after the last back edge and copies the exit after the loop into the
breaks; the loop's test leaves to a detached copy of that exit (a label past the code), so
the else read as code after the loop (textwrap.TextWrapper._wrap_chunks)."""


def wrap(chunks, lines, cur_line):
    while chunks:
        cur_line = step(chunks)
        if cur_line:
            if ok(lines):
                lines.append(cur_line)
            else:
                while cur_line:
                    if fits(cur_line):
                        lines.append(cur_line)
                        break
                    del cur_line[-1]
                else:
                    lines.append(None)
                break
    return lines
