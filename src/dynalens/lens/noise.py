"""Remove torch's profiler bookkeeping from Dynamo's transformed code, before decompiling it.

With `torch._dynamo.config.record_runtime_overhead` (on by default in torch 2.13), Dynamo wraps
the code that prepares a graph's arguments in two calls that only open and close a profiler
range ("Pregraph bytecode"):

    tmp_2 = (tmp_1 := __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter)()
    ... the graph's arguments are pushed on the stack ...
    (tmp_3 := __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit)(tmp_2)

The calls sit *between* pushing the graph function and calling it, with the arguments alive on
the stack across them: no Python source compiles to that shape, so the code cannot come back
exact, and it is the noise users of the reference tool complain about. We take these two calls
out (and the temporaries only they use) with Dynamo's own bytecode assembler, decompile what
remains, and say so in the file. Nothing is computed differently; only the profiler range is
missing when the cleaned code runs under `debug()`.

Anything unexpected (a jump or exception-table edge into the removed instructions, a temporary
used elsewhere) leaves the code untouched.
"""

ENTER = "record_pregraph_bytecode_enter"
EXIT = "record_pregraph_bytecode_exit"
UTILS_GLOBAL = "__import_torch_dot__dynamo_dot_utils"


def has_bookkeeping(code):
    return ENTER in code.co_names or EXIT in code.co_names


def strip_profiler_bookkeeping(code):
    """(cleaned code object, number of calls removed); (code, 0) when there is nothing to do."""
    if not has_bookkeeping(code):
        return code, 0
    try:
        from torch._dynamo.bytecode_transformation import transform_code_object
    except Exception:
        return code, 0
    removed = []

    def transform(instructions, code_options):
        plan = _plan(instructions)
        if plan is None:
            return None
        drop, count = plan
        instructions[:] = [inst for inst in instructions if id(inst) not in drop]
        removed.append(count)
        return None

    try:
        new_code, _ = transform_code_object(code, transform)
    except Exception:
        return code, 0
    if not removed:
        return code, 0
    return new_code, removed[0]


def _plan(instructions):
    """ids of the instructions to drop and the number of calls, or None if unsafe."""
    drop = set()
    temp_names = set()
    count = 0
    i = 0
    n = len(instructions)
    while i < n:
        inst = instructions[i]
        if inst.opname in ("LOAD_ATTR", "LOAD_METHOD") and inst.argval in (ENTER, EXIT):
            span = _call_span(instructions, i)
            if span is None:
                return None
            start, end, names = span
            drop.update(id(x) for x in instructions[start:end + 1])
            temp_names |= names
            count += 1
            i = end + 1
            continue
        i += 1
    if not count:
        return None
    # temporaries that held the callables and the profiler context: their DELETE_FASTs go too,
    # and nothing else may read them
    for inst in instructions:
        if id(inst) in drop or inst.argval not in temp_names:
            continue
        if inst.opname in ("DELETE_FAST",):
            drop.add(id(inst))
        elif inst.opname.startswith(("LOAD_FAST", "STORE_FAST", "LOAD_DEREF", "STORE_DEREF")):
            return None
    kept = [x for x in instructions if id(x) not in drop]
    for inst in kept:
        target = getattr(inst, "target", None)
        if target is not None and id(target) in drop:
            return None
        entry = getattr(inst, "exn_tab_entry", None)
        if entry is not None and any(id(x) in drop for x in (entry.start, entry.end,
                                                             entry.target)):
            return None
    for inst in instructions:
        entry = getattr(inst, "exn_tab_entry", None)
        if id(inst) in drop and entry is not None:
            return None
    return drop, count


def _call_span(instructions, attr_index):
    """(first, last, temp names) of one bookkeeping call statement around its LOAD_ATTR."""
    start = attr_index - 1
    while start >= 0 and instructions[start].opname in ("PUSH_NULL",):
        start -= 1
    if start < 0:
        return None
    load = instructions[start]
    if not (load.opname in ("LOAD_GLOBAL", "LOAD_NAME") and load.argval == UTILS_GLOBAL):
        return None
    if start > 0 and instructions[start - 1].opname == "PUSH_NULL":
        start -= 1
    names = set()
    j = attr_index + 1
    is_exit = instructions[attr_index].argval == EXIT
    # optional "COPY 1; STORE_FAST tmp" caching the callable
    while j < len(instructions) and instructions[j].opname in ("COPY", "DUP_TOP"):
        if j + 1 < len(instructions) and instructions[j + 1].opname == "STORE_FAST":
            names.add(instructions[j + 1].argval)
            j += 2
        else:
            return None
    if is_exit:
        # the one argument: the context manager the enter call stored
        if j < len(instructions) and instructions[j].opname.startswith("LOAD_FAST"):
            names.add(instructions[j].argval)
            j += 1
        else:
            return None
    while j < len(instructions) and instructions[j].opname in ("PRECALL", "KW_NAMES"):
        j += 1
    if j >= len(instructions) or instructions[j].opname not in ("CALL", "CALL_FUNCTION"):
        return None
    j += 1
    if j >= len(instructions):
        return None
    after = instructions[j]
    if is_exit:
        if after.opname != "POP_TOP":
            return None
    else:
        if after.opname != "STORE_FAST":
            return None
        names.add(after.argval)
    return start, j, names


def strip_unreachable(code, prune_locals=False):
    """(code without unreachable instructions, number removed); (code, 0) if none or unsafe.

    Also removed: unconditional jumps to the very next instruction, and values pushed only to
    be popped again (an argument or constant loaded, a few stores later thrown away: Dynamo's
    resume prologue does this with its stack values).

    With `prune_locals`, local names only the removed code used are dropped as well (in order
    of first use, as CPython's compiler numbers them): right for a file that documents the
    code, wrong for a code object that must fit an existing frame.

    Dynamo's resume functions start with a jump over a copy of the original function's code
    up to the graph break, which can never run; CPython's compiler never emits unreachable
    code, so no source can reproduce it. Dynamo's own dead-code pass (the one it runs on the
    code it generates) removes it, and jumps left pointing at the next instruction go too.
    """
    try:
        from torch._dynamo.bytecode_analysis import remove_dead_code, remove_pointless_jumps
        from torch._dynamo.bytecode_transformation import transform_code_object
    except Exception:
        return code, 0
    removed = []

    def transform(instructions, code_options):
        before = len(instructions)
        live = remove_pointless_jumps(remove_dead_code(instructions))
        live = _drop_jumps_to_next(live)
        live = _drop_dead_pushes(code, live)
        used = _used_locals(code, live) if prune_locals else code.co_varnames
        if len(live) < before or used != code.co_varnames:
            instructions[:] = live
            removed.append(before - len(live))
            code_options["co_varnames"] = used
        return None

    try:
        new_code, _ = transform_code_object(code, transform)
    except Exception:
        return code, 0
    return (new_code, removed[0]) if removed else (code, 0)


def simplify(code):
    """Dynamo's code as far as source can express it: (code object, notes for the header).

    Takes out the profiler bookkeeping, unreachable instructions, and locals nothing live uses.
    Every step keeps what the code computes; each one that changed something adds a note.
    """
    notes = []
    code, n = strip_profiler_bookkeeping(code)
    if n:
        notes.append("torch's profiler bookkeeping (%d record_pregraph_bytecode_enter/exit "
                     "calls, which only open and close a profiler range)" % n)
    before = code.co_varnames
    code, m = strip_unreachable(code, prune_locals=True)
    if m:
        notes.append("%d unreachable instructions (for a resume function: Dynamo's copy of the "
                     "code before the graph break, jumped over)" % m)
    dropped = [v for v in before if v not in code.co_varnames]
    if dropped:
        notes.append("local names only that code used (%s)" % ", ".join(dropped))
    return code, notes, n


def _used_locals(code, instructions):
    import inspect

    nargs = code.co_argcount + code.co_kwonlyargcount \
        + bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    names = list(code.co_varnames[:nargs])
    for inst in instructions:
        if inst.opname in ("LOAD_FAST", "STORE_FAST", "DELETE_FAST", "LOAD_FAST_CHECK",
                           "LOAD_FAST_AND_CLEAR", "LOAD_CLOSURE") \
                and isinstance(inst.argval, str) and inst.argval not in names \
                and inst.argval in code.co_varnames:
            names.append(inst.argval)
    return tuple(names)


_UNCONDITIONAL = ("JUMP_FORWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD", "JUMP",
                  "JUMP_BACKWARD_NO_INTERRUPT")


def _targets(instructions):
    out = set()
    for inst in instructions:
        if getattr(inst, "target", None) is not None:
            out.add(id(inst.target))
        entry = getattr(inst, "exn_tab_entry", None)
        if entry is not None:
            out.update((id(entry.start), id(entry.end), id(entry.target)))
    return out


def _drop_jumps_to_next(instructions):
    """Unconditional jumps whose target is the next instruction do nothing: drop them."""
    out = list(instructions)
    changed = True
    while changed:
        changed = False
        targets = _targets(out)
        for i in range(len(out) - 1):
            inst = out[i]
            if inst.opname in _UNCONDITIONAL and inst.target is out[i + 1] \
                    and id(inst) not in targets and inst.exn_tab_entry is None:
                del out[i]
                changed = True
                break
    return out


# stack effect of the only instructions allowed between a dead push and its POP_TOP
_NEUTRAL_EFFECT = {"LOAD_CONST": 1, "LOAD_FAST": 1, "STORE_FAST": -1, "NOP": 0}


def _drop_dead_pushes(code, instructions):
    """`LOAD_FAST arg` / `LOAD_CONST c`, a stack-neutral run of loads and stores, `POP_TOP`:
    the value is never used and loading it cannot fail or have effects, so both go."""
    import inspect

    nargs = code.co_argcount + code.co_kwonlyargcount \
        + bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    args = set(code.co_varnames[:nargs])
    deleted = {inst.argval for inst in instructions if inst.opname == "DELETE_FAST"}
    out = list(instructions)
    changed = True
    while changed:
        changed = False
        targets = _targets(out)
        for i, inst in enumerate(out):
            pure = inst.opname == "LOAD_CONST" or (
                inst.opname == "LOAD_FAST" and inst.argval in args and inst.argval not in deleted)
            if not pure or id(inst) in targets:
                continue
            depth = 0
            for j in range(i + 1, len(out)):
                nxt = out[j]
                if id(nxt) in targets or nxt.exn_tab_entry is not inst.exn_tab_entry:
                    break
                if nxt.opname == "POP_TOP" and depth == 0:
                    del out[j]
                    del out[i]
                    changed = True
                    break
                effect = _NEUTRAL_EFFECT.get(nxt.opname)
                if effect is None:
                    break
                depth += effect
                if depth < 0:
                    break
            if changed:
                break
    return out
