# Shows: for/else whose break sits in an if, inside an if/else: 3.12+ lose the break and move
# the else after the loop; marked not exact (plistlib.load: test_plistlib, 3.13).
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
