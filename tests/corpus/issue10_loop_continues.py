# min-python: 3.10
"""elif chains in loops whose branches continue (issue 10).

3.8/3.9 leave dead jumps after `continue` that the decompiler does not read as the jump over
an else yet: there these shapes come back marked `# dynalens: not exact:`."""


def elif_after_continue(items, out):
    for i in items:
        if i is None:
            continue
        elif i > 1:
            out.append(i)
        print(i)
    return out


def elif_chain_in_loop_ending_in_continue(xs, out):
    x = 0
    while xs:
        x = xs.pop()
        if x == 0:
            continue
        elif x == 1:
            x = out.get(x)
            if x:
                continue
        else:
            raise ValueError(x)
        out.append(x)
    return out


def elif_chain_in_for_with_inner_continue(xs, out):
    for x in xs:
        if x == 0:
            x = out.get(x)
            if x:
                continue
        elif x == 1:
            pass
        elif x == 2:
            return x
        out.append(x)
    return out
