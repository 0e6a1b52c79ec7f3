"""A starred display built inside a comprehension's body (found by attrs' suite on decompiled
attrs: _ClassBuilder._create_slots_class did not decompile). Its LIST_APPEND/LIST_EXTEND add to
the display, not to the comprehension's result."""


def starred_tuple_in_dict_comprehension(d, names):
    return {k: v for k, v in d.items() if k not in (*tuple(names), "a", "b")}


def starred_list_in_list_comprehension(d, names):
    return [k for k in d if k not in (*names, "a")]


def display_elements_in_set_comprehension(xs, ys):
    return {(x, *ys, 1) for x in xs}


def nested_display_in_comprehensions(xs, ys):
    return [[y for y in (*ys, x)] for x in xs]
