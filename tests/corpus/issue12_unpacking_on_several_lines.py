"""Unpacking targets written on several lines, a name repeated among them (torch's
higher_order_ops: ``(p_args, p_kwargs, _, body_r, _, _, out, _,) = self.create_wrapped_node(...)``).
From 3.13 the compiler drops a store to a name that the next instruction stores to again on
the same line, so the targets written on one line were other instructions (a POP_TOP for the
first ``_``): they are written back on the lines the original broke them on."""


def repeated_underscores(self, tx, args, kwargs):
    (
        p_args,
        p_kwargs,
        _example_value,
        body_r,
        _,
        _,
        body_graph_output_vts,
        _,
    ) = self.create_wrapped_node(tx, args[0], args[1:], kwargs, "wrap")
    return p_args, p_kwargs, _example_value, body_r, body_graph_output_vts


def starred_on_lines(f):
    (
        first,
        *_,
        _,
    ) = f()
    return first


def in_a_for(pairs):
    total = 0
    for (
        a,
        _,
        _,
    ) in pairs:
        total += a
    return total


def one_line_still_one_line(f):
    a, _, _ = f()
    return a
