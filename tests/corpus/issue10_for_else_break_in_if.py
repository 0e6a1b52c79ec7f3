# min-python: 3.11
"""A for/else ending an if body, whose break sits in an if (plistlib.load; 3.12+ lost the
break: it jumps where the if body goes on, past the if's else). 3.8-3.10 do not rebuild it
(they raise, never silently wrong)."""


def for_else_break_in_if(fp, fmt, formats):
    # plistlib.load: the break goes where the if body goes on, past its else
    if fmt is None:
        header = fp.read(32)
        for info in formats:
            if info(header):
                P = info
                break
        else:
            raise ValueError()
    else:
        P = formats[fmt]
    return P(fp)
