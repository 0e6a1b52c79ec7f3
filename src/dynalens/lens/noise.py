"""Remove torch's profiler bookkeeping from Dynamo's transformed code, before decompiling it.

With `torch._dynamo.config.record_runtime_overhead` (on by default in torch 2.13 and 2.15),
Dynamo wraps the code that prepares a graph's arguments in two calls that only open and close a
profiler range ("Pregraph bytecode"). Each torch version spells them its own way; the forms
known are recognised here, by shape, in one place (`PROFILER_FORMS`), so a torch that keeps a
form needs no change and a torch with a new one gets a named warning rather than a silent
loss (`unrecognised_bookkeeping`). They live here, not in a table of torch versions, because
what varies is a bytecode shape and only its recogniser can tell it apart; the versions are
recorded beside each form for the reader and the warning.

Form "inline" (torch 2.13 and 2.14): the calls run unconditionally,

    tmp_2 = (tmp_1 := __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter)()
    ... the graph's arguments are pushed on the stack ...
    (tmp_3 := __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit)(tmp_2)

Form "gated" (torch 2.15): the calls run only while a profiler is attached, behind an `if`
compiled from a template (`torch._dynamo.codegen._pregraph_marker_enter_template`):

    tmp_3 = __import_torch_dot_autograd_dot_profiler._is_profiler_enabled
    tmp_2 = __import_torch_dot__dynamo_dot_utils
    tmp_1 = None
    if tmp_3:
        tmp_1 = tmp_2.record_pregraph_bytecode_enter()
    <None, the template's implicit return value, pushed and popped>
    ... the graph's arguments are pushed on the stack ...
    if tmp_1 is not None:
        tmp_2.record_pregraph_bytecode_exit(tmp_1)
    <None pushed and popped>

In both forms the calls sit *between* pushing the graph function and calling it, with the
arguments alive on the stack across them: no Python source compiles to that shape, so the code
cannot come back exact, and it is the noise users of the reference tool complain about. We take
the bookkeeping out (and the temporaries only it uses) with Dynamo's own bytecode assembler,
decompile what remains, and say so in the file. The assembler runs in its safe mode, so
nothing else of Dynamo's code is rewritten on the way (its default cleaning turns, e.g.,
BINARY_SLICE into BUILD_SLICE + BINARY_SUBSCR from 3.12). Nothing is computed differently;
only the profiler range is missing when the cleaned code runs under `debug()`.

Anything unexpected (a jump or exception-table edge into the removed instructions, a temporary
used elsewhere) leaves the code untouched.
"""

import contextlib
import re
import sys
import threading

ENTER = "record_pregraph_bytecode_enter"
EXIT = "record_pregraph_bytecode_exit"
UTILS_GLOBAL = "__import_torch_dot__dynamo_dot_utils"
PROFILER_FLAG = "_is_profiler_enabled"
# globals Dynamo installs for the modules it imports (`import_source`: "__import_" + the
# module's name with "." spelled "_dot_"); the gated form reads torch's own modules only
_TORCH_IMPORT_GLOBAL = re.compile(r"^__import_torch(_dot_\w+)?$")


def has_bookkeeping(code):
    return ENTER in code.co_names or EXIT in code.co_names


def strip_profiler_bookkeeping(code):
    """(cleaned code object, number of calls removed); (code, 0) when there is nothing to do."""
    code, removed, _ = _strip(code)
    return code, removed


def _strip(code):
    """(code, number of calls removed, name of the form recognised or None)."""
    if not has_bookkeeping(code):
        return code, 0, None
    try:
        from torch._dynamo.bytecode_transformation import transform_code_object
    except Exception:
        return code, 0, None
    removed = []

    def transform(instructions, code_options):
        for form, _versions, planner in PROFILER_FORMS:
            plan = planner(instructions)
            if plan is not None:
                drop, count = plan
                instructions[:] = [inst for inst in instructions if id(inst) not in drop]
                removed.append((count, form))
                return None
        return None

    try:
        new_code, _ = transform_code_object(code, transform, safe=True)
    except Exception:
        return code, 0, None
    if not removed:
        return code, 0, None
    return new_code, removed[0][0], removed[0][1]


def unrecognised_bookkeeping(code, removed):
    """A warning text when `code` calls the profiler bookkeeping in a form not taken out."""
    if removed or not has_bookkeeping(code):
        return None
    return ("unrecognised torch surface 'profiler bookkeeping': %s calls %s in a form this "
            "dynalens does not know (known: %s); the calls are kept in the decompiled code"
            % (code.co_name, " and ".join(n for n in (ENTER, EXIT) if n in code.co_names),
               ", ".join("%s (torch %s)" % (f, v) for f, v, _ in PROFILER_FORMS)))


def _plan(instructions):
    """Form "inline": ids of the instructions to drop and the number of calls, or None."""
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
    return _checked_drop(instructions, drop, temp_names, count)


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


_LOCAL_LOADS = ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW")
_BRANCHES = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
             "POP_JUMP_IF_NOT_NONE", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
             "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE")
_FORWARD_JUMPS = ("JUMP_FORWARD", "JUMP", "JUMP_NO_INTERRUPT")


def _plan_gated(instructions):
    """Form "gated": ids of the instructions to drop and the number of calls, or None.

    Each bookkeeping pair is two regions: the enter region starts where the profiler flag is
    read (`__import_torch..profiler._is_profiler_enabled`) and the exit region where a local
    the enter region stored is next read. A region is accepted only if every instruction in
    it is one the templates use, on those locals, torch's import globals and the constant
    None; its jumps stay inside it; it never pops a value it did not push (so the graph's
    arguments, on the stack around it, are untouched); and it calls exactly its one
    bookkeeping function.
    """
    index_of = {id(inst): k for k, inst in enumerate(instructions)}
    drop, temps, count = set(), set(), 0
    k = 0
    while k < len(instructions):
        if not _starts_gate(instructions, k):
            k += 1
            continue
        enter = _gated_region(instructions, index_of, k, ENTER, temps, stores=True)
        if enter is None:
            return None
        end, stored = enter
        temps |= stored
        follow = next((j for j in range(end + 1, len(instructions))
                       if instructions[j].opname in _LOCAL_LOADS
                       and instructions[j].argval in stored), None)
        if follow is None:
            return None
        exit_ = _gated_region(instructions, index_of, follow, EXIT, stored, stores=False)
        if exit_ is None:
            return None
        drop.update(id(x) for x in instructions[k:end + 1])
        drop.update(id(x) for x in instructions[follow:exit_[0] + 1])
        count += 2
        k = exit_[0] + 1
    if not count:
        return None
    return _checked_drop(instructions, drop, temps, count)


def _starts_gate(instructions, k):
    inst = instructions[k]
    return (inst.opname == "LOAD_GLOBAL" and isinstance(inst.argval, str)
            and _TORCH_IMPORT_GLOBAL.match(inst.argval) is not None
            and k + 1 < len(instructions)
            and instructions[k + 1].opname == "LOAD_ATTR"
            and instructions[k + 1].argval == PROFILER_FLAG)


def _pops(inst):
    """Values an instruction of the templates takes off the stack (None: not one of them)."""
    name = inst.opname
    if name in ("STORE_FAST", "POP_TOP", "TO_BOOL", "LOAD_ATTR", "LOAD_METHOD") \
            or name in _BRANCHES:
        return 1
    if name == "IS_OP":
        return 2
    if name == "PRECALL":
        return (inst.arg or 0) + 2
    if name == "CALL":
        return 2 if sys.version_info[:2] == (3, 11) else (inst.arg or 0) + 2
    if name in _LOCAL_LOADS or name in ("LOAD_GLOBAL", "LOAD_CONST", "NOP", "PUSH_NULL") \
            or name in _FORWARD_JUMPS:
        return 0
    return None


def _gated_region(instructions, index_of, start, function, temps, stores):
    """(last index, locals stored) of one gated region starting at `start`, or None."""
    import dis

    pending = {}            # instruction index -> stack depth a jump arrives with
    depth, falls, calls, attrs = 0, True, 0, 0
    stored = set()
    for k in range(start, len(instructions)):
        inst = instructions[k]
        incoming = ([depth] if falls else []) + ([pending.pop(k)] if k in pending else [])
        if not incoming or len(set(incoming)) != 1:
            return None
        depth = incoming[0]
        name, arg = inst.opname, inst.arg
        pops = _pops(inst)
        if pops is None or depth < pops or inst.exn_tab_entry is not None:
            return None
        if name == "LOAD_GLOBAL":
            if (arg or 0) & 1 or not _TORCH_IMPORT_GLOBAL.match(str(inst.argval)):
                return None
        elif name in ("LOAD_ATTR", "LOAD_METHOD"):
            if inst.argval == function:
                attrs += 1
            elif not (stores and inst.argval == PROFILER_FLAG):
                return None
        elif name == "STORE_FAST":
            if not stores:
                return None
            stored.add(inst.argval)
        elif name in _LOCAL_LOADS:
            if inst.argval not in (stored if stores else temps):
                return None
        elif name == "LOAD_CONST":
            if inst.argval is not None:
                return None
        elif name in ("CALL",):
            calls += 1
        try:
            after = depth + dis.stack_effect(
                inst.opcode, arg if inst.opcode >= dis.HAVE_ARGUMENT else None, jump=False)
        except (ValueError, TypeError):
            return None
        falls = name not in _FORWARD_JUMPS
        if name in _BRANCHES or name in _FORWARD_JUMPS:
            target = index_of.get(id(inst.target))
            if target is None or target <= k:
                return None
            arrives = depth - 1 if name in _BRANCHES else depth
            if pending.setdefault(target, arrives) != arrives:
                return None
            if not falls:
                after = depth
        depth = after
        if calls and falls and depth == 0 and not pending:
            return (k, stored) if calls == 1 and attrs == 1 else None
    return None


PROFILER_FORMS = (
    # (name, torch versions seen emitting it, planner)
    ("inline", "2.13, 2.14", _plan),
    ("gated", "2.15", _plan_gated),
)


def _checked_drop(instructions, drop, temps, count):
    """(drop, count) after the checks shared by the forms, or None if dropping is unsafe:
    the temporaries are used only by the dropped code (their `del`s go too), nothing left
    jumps into the dropped code, and no exception-table edge touches it."""
    drop = set(drop)
    for inst in instructions:
        if id(inst) in drop or inst.argval not in temps:
            continue
        if inst.opname == "DELETE_FAST":
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


def strip_unreachable(code, prune_locals=False):
    """(code, instructions removed, stores moved); (code, 0, 0) if nothing to do or unsafe.

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
        return code, 0, 0
    removed = []
    moved = []

    def transform(instructions, code_options):
        before = len(instructions)
        live = remove_pointless_jumps(remove_dead_code(instructions))
        live = _drop_jumps_to_next(live)
        live = _drop_dead_pushes(code, live)
        live = _drop_dead_values(live)
        live = _drop_deletes_before_return(live)
        live, moves = _store_before_deletes(live)
        moved.append(moves)
        used = _used_locals(code, live) if prune_locals else code.co_varnames
        if len(live) < before or used != code.co_varnames or moves:
            instructions[:] = live
            removed.append(before - len(live))
            code_options["co_varnames"] = used
        return None

    try:
        new_code, _ = transform_code_object(code, transform, safe=True)
    except Exception:
        return code, 0, 0
    return (new_code, removed[0], moved[0]) if removed else (code, 0, 0)


_SHARED = threading.local()


@contextlib.contextmanager
def simplified_once():
    """Within the block, :func:`simplify` works each code object out once.

    Writing a dump simplifies one code object several times (a resume function for the file
    of the compile that calls it, for its own compile's full_code file, and again when the
    decompiler reads the lens's view of it through ``generated.generated_view``), and each
    time runs Dynamo's bytecode assembler. A code object `simplify` made is its own
    simplification: it is the view the lens decompiles and verifies against. Outside the
    block (and after it) everything is worked out afresh, so nothing outlives one dump."""
    outer = getattr(_SHARED, "table", None)
    if outer is None:
        _SHARED.table = {}
    try:
        yield
    finally:
        if outer is None:
            _SHARED.table = None


def simplify(code, warn=None):
    """Dynamo's code as far as source can express it: (code object, notes for the header).

    `warn(text)` is called when the code holds a torch surface this module does not know.

    Takes out the profiler bookkeeping, unreachable instructions, values nothing reads, `del`s
    right before `return` (the frame drops its locals there anyway), and locals nothing live
    uses. Every step keeps what the code computes; each one that changed something adds a note.
    """
    table = getattr(_SHARED, "table", None)
    entry = table.get(id(code)) if table is not None else None
    if entry is not None and entry[0] is code:
        clean, notes, n = entry[1]
    else:
        clean, notes, n = _simplify(code)
        if table is not None:
            table[id(code)] = (code, (clean, notes, n))
            if clean is not code:
                table[id(clean)] = (clean, (clean, [], 0))
    problem = unrecognised_bookkeeping(code, n)
    if problem and warn is not None:
        warn(problem)
    return clean, list(notes), n


def _simplify(code):
    notes = []
    code, n, form = _strip(code)
    if n:
        notes.append("torch's profiler bookkeeping (%d record_pregraph_bytecode_enter/exit "
                     "calls, which only open and close a profiler range%s)"
                     % (n, ", run only while a profiler is active" if form == "gated" else ""))
    before = code.co_varnames
    code, m, moves = strip_unreachable(code, prune_locals=True)
    if m:
        notes.append("%d instructions that never run or compute nothing used: unreachable code "
                     "(a resume function's copy of the code before the graph break), values "
                     "pushed only to be popped (Dynamo's nested-graph-break lists), jumps to the "
                     "next instruction, `del` of locals right before `return`" % m)
    if moves:
        notes.append("where Dynamo deletes its temporaries while a result is on the stack, the "
                     "result is stored first")
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


# -- values pushed, shuffled and popped without being used -------------------------------------
# Dynamo 2.13 ends a frame by building lists for its nested-graph-break convention that nothing
# reads: they are pushed, SWAPped around the result and popped. Within one basic block, a value
# made by a pure instruction (LOAD_CONST, BUILD_LIST, BUILD_TUPLE, extended in place by
# LIST_EXTEND) that is only ever popped, extended or built into other such values is dead: its
# instructions go, SWAPs that then move no live value go, and the block is re-simulated to check
# that every remaining instruction consumes exactly the live values it did before.

# (pops, pushes) of the instructions understood; anything else ends the analysis of a block
_STACK = {
    "LOAD_CONST": (0, 1), "LOAD_FAST": (0, 1), "STORE_FAST": (1, 0), "DELETE_FAST": (0, 0),
    "POP_TOP": (1, 0), "BINARY_SUBSCR": (2, 1), "RETURN_VALUE": (1, 0), "NOP": (0, 0),
}


class _Value:
    __slots__ = ("pure", "uses", "parts")

    def __init__(self, pure):
        self.pure = pure              # made in this block by a pure instruction
        self.uses = []                # (instruction index, role)
        self.parts = []              # values built into it (BUILD_*, LIST_EXTEND)


def _effect(inst):
    if inst.opname in _STACK:
        return _STACK[inst.opname]
    if inst.opname in ("BUILD_LIST", "BUILD_TUPLE"):
        return inst.arg, 1
    return None


def _simulate(block):
    """[(stack before, consumed values, pushed values)] per instruction, or None if unknown."""
    stack = []
    steps = []

    def need(n):
        while len(stack) < n:
            stack.insert(0, _Value(False))

    for idx, inst in enumerate(block):
        before = list(stack)
        name = inst.opname
        if name == "SWAP":
            need(inst.arg)
            stack[-1], stack[-inst.arg] = stack[-inst.arg], stack[-1]
            steps.append((before, [], []))
            continue
        if name == "LIST_EXTEND":
            need(inst.arg + 1)
            src = stack.pop()
            target = stack[-inst.arg]
            src.uses.append((idx, "part"))
            target.uses.append((idx, "extended"))
            target.parts.append(src)
            steps.append((before, [src], []))
            continue
        eff = _effect(inst)
        if eff is None:
            return None
        pops, pushes = eff
        need(pops)
        consumed = [stack.pop() for _ in range(pops)][::-1]
        pure = name in ("LOAD_CONST", "BUILD_LIST", "BUILD_TUPLE")
        made = []
        for _ in range(pushes):
            v = _Value(pure)
            if pure:
                v.parts = list(consumed)
            made.append(v)
            stack.append(v)
        for v in consumed:
            v.uses.append((idx, "pop" if name == "POP_TOP" else (
                "part" if pure else "used")))
        steps.append((before, consumed, made))
    return steps, stack


def _dead_values(steps, end_stack):
    values = set()
    for before, consumed, made in steps:
        values.update(made)
    dead = {v for v in values if v.pure and v not in end_stack}
    changed = True
    while changed:
        changed = False
        for v in list(dead):
            ok = all(role in ("pop", "extended") for _, role in v.uses if role != "part")
            # as a part it must only go into dead values
            if ok:
                for w in values:
                    if v in w.parts and w not in dead:
                        ok = False
                        break
            if not ok or any(not p.pure or p not in dead for p in v.parts):
                dead.discard(v)
                changed = True
    return dead


def _rewrite_block(block):
    """The block without its dead values, or None when nothing (safely) changes."""
    sim = _simulate(block)
    if sim is None:
        return None
    steps, end_stack = sim
    dead = _dead_values(steps, end_stack)
    if not dead:
        return None
    out = []
    for inst, (before, consumed, made) in zip(block, steps):
        name = inst.opname
        if made and all(v in dead for v in made):
            continue                                   # producer of dead values
        if name == "POP_TOP" and consumed[0] in dead:
            continue
        if name == "LIST_EXTEND" and before[-1 - inst.arg] in dead:
            continue
        if name == "SWAP":
            live_before = [v for v in before if v not in dead]
            after = list(before)
            after[-1], after[-inst.arg] = after[-inst.arg], after[-1]
            live_after = [v for v in after if v not in dead]
            if live_before == live_after:
                continue
            # one exchange of the top live value with a deeper live value
            diff = [k for k in range(len(live_before)) if live_before[k] is not live_after[k]]
            if len(diff) != 2 or diff[1] != len(live_before) - 1:
                return None
            inst.arg = len(live_before) - diff[0]
            inst.argval = inst.arg
        if any(v in dead for v in consumed) and name not in ("POP_TOP",):
            return None                                # a dead value used for real
        out.append(inst)
    # check: the live values every kept instruction consumes are the same as before
    check = _simulate(out)
    if check is None or len(check[0]) != len(out):
        return None
    old = {id(inst): [v for v in c if v not in dead]
           for inst, (b, c, m) in zip(block, steps) if inst.opname not in ("SWAP",)}
    mapping = {}
    for inst, (b, c, m) in zip(out, check[0]):
        if inst.opname == "SWAP":
            continue
        if len(c) != len(old[id(inst)]):
            return None
        for new_v, old_v in zip(c, old[id(inst)]):
            if mapping.setdefault(id(new_v), old_v) is not old_v:
                return None
    return out


def _understood(inst):
    return inst.opname in ("SWAP", "LIST_EXTEND") or _effect(inst) is not None


def _drop_dead_values(instructions):
    """Apply `_rewrite_block` to every run of understood instructions.

    A run ends at a jump target, at an instruction the simulation does not know (a call, a
    jump: it may consume anything, so what is on the stack there stays live) and around
    instructions covered by the exception table.
    """
    targets = _targets(instructions)
    out, run = [], []

    def flush():
        if run:
            new = _rewrite_block(run)
            out.extend(run if new is None else new)
            del run[:]

    for inst in instructions:
        if id(inst) in targets:
            flush()
        if _understood(inst) and inst.exn_tab_entry is None:
            run.append(inst)
        else:
            flush()
            out.append(inst)
    flush()
    return out


def _drop_deletes_before_return(instructions):
    """`del x` right before `return`: the frame releases its locals at return anyway."""
    targets = _targets(instructions)
    out = list(instructions)
    k = len(out) - 1
    while k > 0:
        if out[k].opname == "RETURN_VALUE":
            j = k - 1
            while j >= 0 and out[j].opname == "DELETE_FAST" and id(out[j]) not in targets \
                    and id(out[j + 1]) not in targets and out[j].exn_tab_entry is None:
                del out[j]
                k -= 1
                j -= 1
        k -= 1
    return out


def _store_before_deletes(instructions):
    """`del t1, t2` between a call and the store of its result: store first, then delete.

    Dynamo deletes its argument temporaries while the graph's result is still on the stack,
    which no source can say; storing the result under a different name first computes the
    same (the deleted names are not the stored one).
    """
    targets = _targets(instructions)
    out = list(instructions)
    moves = 0
    k = 0
    while k < len(out):
        if out[k].opname != "DELETE_FAST" or id(out[k]) in targets \
                or out[k].exn_tab_entry is not None:
            k += 1
            continue
        j = k
        while j < len(out) and out[j].opname == "DELETE_FAST" and out[j].exn_tab_entry is None \
                and (j == k or id(out[j]) not in targets):
            j += 1
        names = {i.argval for i in out[k:j]}
        if j < len(out) and out[j].opname == "STORE_FAST" and id(out[j]) not in targets \
                and out[j].exn_tab_entry is None and out[j].argval not in names:
            store = out.pop(j)
            out.insert(k, store)
            moves += 1
            k = j + 1
        else:
            k = j
    return out, moves
