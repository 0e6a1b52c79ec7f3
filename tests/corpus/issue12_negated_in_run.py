"""``not (a in b or c)`` among other operands of an ``and`` (``x and not (a in b or c)``),
where nested ifs merge into one test: read as ``x and not a in b and not c``, which the
compiler's AST optimizer turns into ``a not in b`` (the other comparison); the run of negated
operands is negated as a whole, as a test made only of them already was (every version;
torch._inductor.codegen.pallas PallasKernel._get_index_expr, grouped_reduce). Alone among
other operands (``not (a is not None and b in c)``, read as ``a is None or not b in c``) the
whole test is negated, each operand negated back (torch._dynamo UserDefinedObjectVariable
._maybe_lookup_method). A comprehension's ``if`` clauses read from ``if ...: continue``
statements are negated one by one: a lone negated ``is``/``in`` clause takes its neighbour
in (torch._subclasses.meta_utils MetaTensorDesc.as_json, profiler._cuspy.trace)."""


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


def negated_and_with_none_test(base, attr, f):
    if not (base is not None and attr in base):
        f()
    return attr


def comprehension_clause(self, fields, json):
    r = {
        field.name: json(field.name, getattr(self, field.name))
        for field in fields
        if not (
            getattr(self, field.name) is field.default
            or (
                field.name == "dynamo_dynamic_indices"
                and not getattr(self, field.name)
            )
        )
    }
    return r


def comprehension_clauses_in(events):
    return [
        event
        for event in events
        if (
            event.get("cat") == "Trace"
            and event.get("name") == "PyTorch Profiler (0)"
        )
        or event.get("name")
        in {"Iteration Start: PyTorch Profiler", "Record Window End"}
    ]
