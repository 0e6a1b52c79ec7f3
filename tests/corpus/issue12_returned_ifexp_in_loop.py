# min-python: 3.11
# max-python: 3.13
"""``return x if c else <constant>`` inside a loop (3.12/3.13): the return copied into each
branch pops the loop's iterator first (``LOAD_CONST; SWAP 2; POP_TOP; RETURN_VALUE``), so the
mark that says "an expression's branch" (a written ``return <constant>`` there is ``POP_TOP;
RETURN_CONST``) was not found and it read as two if statements (torch.jit._trace
_create_interpreter_name_lookup_fn). 3.10 and 3.14+ still read it otherwise (not exact, marked)."""


def returned_ifexp_in_loop(xs):
    for k in xs:
        if k:
            return k if k != "self" else ""
    return ""


def written_constant_return_in_loop(xs):
    for k in xs:
        if k:
            if k != "self":
                return k
            return ""
    return ""
