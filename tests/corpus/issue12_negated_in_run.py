"""``not (a in b or c)`` among other operands of an ``and`` (``x and not (a in b or c)``),
where nested ifs merge into one test: read as ``x and not a in b and not c``, which the
compiler's AST optimizer turns into ``a not in b`` (the other comparison); the run of negated
operands is negated as a whole, as a test made only of them already was (every version;
torch._inductor.codegen.pallas PallasKernel._get_index_expr, grouped_reduce)."""


def nested_ifs(needs, s, t):
    if not needs and s != "...":
        if not ("::" in s or t()):
            needs = True
    return needs


def and_not_or(a, b, c, d):
    if a and not (b in c or d):
        return 1
    return 2


def or_not_and(a, b, c, d):
    if a or not (b is c and d):
        return 1
    return 2


def run_in_the_middle(a, b, c, d, e):
    if a and not (b in c or d) and e:
        return 1
    return 2
