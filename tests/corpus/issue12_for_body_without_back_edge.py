"""3.8/3.9: the last jump back to a for loop's head is its back edge only when the loop's
exit follows it. A body that ends in a return has none (unittest.case._AssertWarnsContext.
__exit__): its last jump back is a ``continue``, which was read as the back edge, so an if
before it took what follows it for its else. A back edge left dead after a written
``continue`` (modulefinder.ModuleFinder.scan_opcodes) is jumped to by nothing: an if/else
before it ends at that continue."""


def body_ends_in_return(self, warnings, expected, regex):
    first_matching = None
    for m in warnings:
        w = m.message
        if not isinstance(w, expected):
            continue
        if first_matching is None:
            first_matching = w
        if regex is not None and not regex.search(str(w)):
            continue
        self.warning = w
        return
    return first_matching


def continue_ends_body(opargs, store_ops, import_name, level, fromlist):
    for i, (op, oparg) in enumerate(opargs):
        if op in store_ops:
            yield "store", (oparg,)
            continue
        if op == import_name:
            if level == 0:
                yield "absolute_import", (fromlist, oparg)
            else:
                yield "relative_import", (level, fromlist, oparg)
            continue


def elif_try_ends_body(opts, g):
    # (the back edge is dead after the bare clause's exit: the jump back before it still
    # ends the loop body; smtpd.parseargs)
    for opt in opts:
        if opt in ('-h',):
            g(0)
        elif opt in ('-s', '--size'):
            try:
                g(1)
            except:
                g(2)
    return 1
