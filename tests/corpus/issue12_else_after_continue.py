"""`if c: ...; continue` with an `else` (3.8/3.9): the jump over the else stays behind the
`continue`, dead, and its target is where the else ends; without it the else's statements read
as following the if, which compiles without that dead jump (issue 12)."""


def else_after_continue(parts, defects):
    i = 0
    for number, param in parts:
        if number != i:
            if not param.extended:
                defects.append("duplicate")
                continue
            else:
                defects.append("numbering")
        i += 1
        defects.append(param)
    return defects


def elif_after_continue(items, out):
    for item in items:
        if item is None:
            out.append(0)
            continue
        elif item < 0:
            out.append(-item)
        out.append(item)
