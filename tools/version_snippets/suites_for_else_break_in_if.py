# Shows: for/else whose break sits in an if, inside an if/else: 3.12+ lost the break and moved
# the else after the loop (plistlib.load: test_plistlib, 3.13): the break jumps where the if
# body goes on, past its else. Fixed (branches.range_joins).
def f(fp, fmt, formats):
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
