"""3.8/3.9 thread a test whose target is a `continue` (or a loop's back edge) to the loop
head and leave the jump itself behind, dead; which tests went through it decides the shape
(issue 12).

* `else: continue` ending an if/elif chain in the middle of a loop body: only that chain's
  last test went there; an enclosing if's test that also jumps to the head was threaded
  from the loop's back edge, and the statements after the chain stay in its body.
* A test before a loop whose false branch falls into the loop goes to the loop head too,
  without any threading: the dead back edge of a `while 1:` that ends in a return is no
  target of it.
"""


def else_continue_in_chain(code, jrel, jabs):
    labels = []
    for offset, op, arg in code:
        if arg is not None:
            if op in jrel:
                label = offset + 2 + arg
            elif op in jabs:
                label = arg
            else:
                continue
            if label not in labels:
                labels.append(label)
    return labels


def else_continue_after_and(modules, kinds, is_frozen):
    for name, module in modules:
        if isinstance(module, kinds):
            if name in kinds.names:
                loader = 1
            elif is_frozen(name) and name:
                loader = 2
            else:
                continue
            module.loader = loader
            module.spec = name


def falls_into_endless_loop(scan, data, j):
    c = data[j:j + 1]
    if c == ">":
        return j + 1
    while 1:
        name, j = scan(j)
        if j < 0:
            return j
        c = data[j:j + 1]
        if c == ">":
            return j + 1


def nested_if_ending_loop_body(lines, hint):
    # (the dead jump is the loop's own back edge here: every test threaded through it)
    result = []
    for line in lines:
        result.append(line)
        if hint is not None:
            hint -= len(line)
            if hint <= 0:
                break
    return result


def else_continue_after_break(items, k):
    # (the dead jump over the else stands between the break and the dead continue)
    for ii in items:
        if ii == 0:
            if k:
                break
            else:
                continue
        k(ii)


def if_else_both_break(argvar):
    # (every way through the body leaves the loop: its back edge is dead too, and the dead
    # jump over the else after the first break goes there)
    for idx, arg in enumerate(argvar):
        if arg == 'x':
            sysroot = argvar[idx + 1]
            break
        else:
            sysroot = arg[3:]
            break
    return sysroot
