"""3.8/3.9: ``try``/``except E: break``/``else: ...`` ending a loop body (inspect.
BoundArguments.args): the clause's own exit, left dead after the ``break``, jumps to the
loop head (threaded from the try's end, the loop's back edge), so the try ends the loop body
and what its body skips to is the else; it read as code after the try."""


def args(self, items):
    args = []
    for param in items:
        try:
            arg = self.arguments[param]
        except KeyError:
            break
        else:
            if param:
                args.extend(arg)
            else:
                args.append(arg)
    return args


def continue_in_clause(items, g, h):
    for item in items:
        try:
            value = g(item)
        except ValueError:
            continue
        else:
            h(value)
    return items


def else_break_ends_body(cmds, g):
    # (3.9: the loop's back edge is dead after the else's break, so the break is the last
    # instruction of the body: it belongs to the else; platform._syscmd_ver)
    for cmd in cmds:
        try:
            info = g(cmd)
        except (OSError, ValueError) as why:
            continue
        else:
            break
    else:
        return 1
    return info
