"""Readable transformed code: the decompiled source of a Dynamo frame, rewritten and re-verified.

A faithful decompile of Dynamo's transformed code holds every value Dynamo left on the stack in
a ``__temp_N`` variable, so a three-line function reads as thirty lines of list shuffling. This
pass rewrites the decompiled source (an ``ast``) in three ways that change no operation:

* **collapse** Dynamo's list shuffling before a resume call into the lists it ends up
  passing (:mod:`resume_lists`): ``return __resume_at_102_2([], [], b, x)``;
* **inline** a temporary that is stored once and read once into the place it is read
  (``__temp_4 = [g[1]]; __temp_1 = __temp_4[0:1]`` -> ``__temp_1 = [g[1]][0:1]``);
* **rename** the temporaries left by what Dynamo's code says they are (:func:`_role_names`):
  the lists of its resume-function call (``live_values``, ``frame_values``,
  ``nested_frame_values``, ``cells``, ``resume_fn``), values by the resume function's
  parameter names (the user's variable names), graph outputs, what a value was read from.

Nothing here decides that a rewrite is right: every candidate is handed to ``check`` (the
caller's verification of the whole file against Dynamo's bytecode, the dataflow check) and kept
only when it passes; one that does not is dropped and the faithful form stays. So evaluation
order is never argued syntactically -- an inline that would move a call past another event is
simply refused by the check.

Comments, which change no code: ``# = b, x`` after the statement that puts a frame's values in
parameter order, ``# in effect: return __resume_at_102_2(b=b, x=graph_out_0[1])`` above a
resume call (:func:`resume_summaries` follows the list operations), and, by
:func:`line_comments`, each statement's line in the user's source (Dynamo keeps the user's
line numbers in the transformed code's line table).
"""

import ast
import difflib
import dis
import os
import re

from dynalens.decompiler.fast_unparse import unparse as _unparse  # ast.unparse's text, faster
# (dis.get_instructions' records, decoded once per code object within the lens's
# shared_disassembly block: function_source's)
from dynalens.decompiler.instructions import raw_instructions

from .relabel import _SKIP, _key
from .resume_lists import collapse
from .temporaries import TEMP_RE, copied, function_named

_NESTED_ARGS = ("__nested_resume_fns", "__nested_frame_values")
_MAX_CHECKS = 100  # checks spent inlining one at a time when all at once does not verify
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def temp_count(text):
    """How many distinct ``__temp_N`` names ``text`` uses (the figure bench/readable.py prints)."""
    return len(set(re.findall(r"\b__temp_\d+\b", text)))


def _blocks(node):
    """Every statement list in ``node`` (bodies of if/with/try...), not entering nested scopes."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
            for stmt in block:
                if not isinstance(stmt, _SCOPES):
                    yield from _blocks(stmt)
    for handler in getattr(node, "handlers", ()):
        yield from _blocks(handler)
    for case in getattr(node, "cases", ()):
        yield from _blocks(case)


def _uses(func):
    """name -> [Name nodes] for every temporary read or written in ``func``."""
    uses = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and TEMP_RE.match(node.id):
            uses.setdefault(node.id, []).append(node)
    return uses


def _inside(tree, target, stop_at=_SCOPES + _LOOPS):
    """Is ``target`` in ``tree`` without crossing a nested scope or a loop?"""
    if tree is target:
        return True
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, stop_at):
            continue
        if _inside(child, target, stop_at):
            return True
    return False


def _inline_candidates(func):
    """[(name, block, index of the store)] for temporaries stored once and read once, the read
    in a later statement of the same block (not inside a loop or a nested scope)."""
    uses = _uses(func)
    found = []
    for block in _blocks(func):
        for index, stmt in enumerate(block):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                    and TEMP_RE.match(stmt.targets[0].id)):
                continue
            name = stmt.targets[0].id
            nodes = uses.get(name, [])
            loads = [n for n in nodes if isinstance(n.ctx, ast.Load)]
            if len(nodes) != 2 or len(loads) != 1:
                continue
            if any(_inside(later, loads[0]) for later in block[index + 1:]):
                found.append(name)
    return found


def _replace_loads(node, name, value):
    """Every read of ``name`` under ``node`` replaced by ``value`` (unparse adds any
    parentheses)."""
    pending = [node]
    while pending:
        current = pending.pop()
        for field, child in ast.iter_fields(current):
            if isinstance(child, list):
                for index, item in enumerate(child):
                    if isinstance(item, ast.Name) and item.id == name \
                            and isinstance(item.ctx, ast.Load):
                        child[index] = value
                    elif isinstance(item, ast.AST):
                        pending.append(item)
            elif isinstance(child, ast.Name) and child.id == name \
                    and isinstance(child.ctx, ast.Load):
                setattr(current, field, value)
            elif isinstance(child, ast.AST):
                pending.append(child)


def _inline(tree, func_name, name, in_place=False):
    """``tree`` with temporary ``name`` inlined (a new tree unless ``in_place``; None when it
    is not there)."""
    if not in_place:
        tree = copied(tree)
    func = function_named(tree, func_name)
    for block in _blocks(func):
        for index, stmt in enumerate(block):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name:
                del block[index]
                _replace_loads(func, name, stmt.value)
                return tree
    return None


def _touched_locals(code):
    """Locals ``code`` reads or writes, and its arguments: names a rewrite must not reuse.
    (Locals Dynamo keeps but never uses are free: the dataflow check lets either side hold
    values in them.)"""
    count = code.co_argcount + code.co_kwonlyargcount \
        + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    used = set(code.co_varnames[:count])
    for ins in raw_instructions(code):
        if "FAST" in ins.opname:
            used.update(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
    return used & set(code.co_varnames)


def _global_names(code):
    """Globals and builtins ``code`` reads or writes (co_names also holds attribute names,
    which a local of the same name does not hide)."""
    return {ins.argval for ins in raw_instructions(code)
            if ins.opname.endswith(("_GLOBAL", "_GLOBALS", "_NAME"))
            and isinstance(ins.argval, str)}


def _parameters(code):
    count = code.co_argcount + code.co_kwonlyargcount
    return code.co_varnames[:count]


def _assigns(func):
    """[(target name, value)] of every ``temp = value`` statement in ``func``."""
    return [(node.targets[0].id, node.value) for node in ast.walk(func)
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)]


def _role_names(func, resume_params, taken):
    """{temporary: readable name} from what Dynamo's code says the values are.

    Dynamo's call of a resume function (torch 2.13+, ``codegen_call_resume``) reads, in
    order: build each frame's live values (``live_values``: stack values, then locals), put
    them in a list per frame (``frame_values``) with a parallel list of closure cells
    (``cells``), keep the frames that resume (``nested_frame_values``), put this frame's
    values in parameter order, and call ``resume_fn(nested_resume_fns, nested_frame_values,
    *live_values)`` with this frame's list taken off the end. The rules, applied until no new
    name is found:

    * ``T = __resume_at_...`` then ``T(A, B, *C)``: T ``resume_fn``; A and B after the resume
      function's first parameters; C ``live_values``;
    * ``L[0:] = [e0, e1, ...]`` in the block that makes such a call, with as many items as the
      resume function has parameters after the nested lists: L is ``live_values`` and each
      ``ei`` the value of that parameter (a user variable's name);
    * ``N = [F[k]]`` with N ``nested_frame_values``: F is ``frame_values``; ``F = [L]`` with F
      ``frame_values``: L is ``live_values``; ``T = [(), ...]`` (a list of cell tuples):
      ``cells``; ``resume_fn = __resume_at_...(C[-1])`` (a resume function made with its
      closure cells): C is ``nested_cells`` (and ``frame_cells = C[-1]`` when loaded first);
    * ``__resume_at_...(T)(...)`` (the collapsed form, :mod:`resume_lists`): T
      ``frame_cells``, the call's arguments after the resume function's parameters;
    * ``f(*T)``, ``f(**T)``: ``call_args``, ``call_kwargs``;
    * ``T = graph_out_0[i]``: a graph output, ``graph_out_0_i``;
    * a temporary never read: ``_``;
    * otherwise what it was read from: ``T = sink`` -> ``sink_``, ``T = opt.zero_grad`` ->
      ``zero_grad``, ``T = __builtins_dict['print']`` -> ``print`` (the function called at the
      graph break, kept aside while the graph runs), ``T = cache.layers[0]`` -> ``layers_0``;
      ``T = __compiled_fn_5(...)``: ``graph_out``.

    One name may go to several temporaries (both branches of an ``if`` call a resume function;
    the same list is read again): the verification decides whether that is the same value.
    A name the code object uses itself gets a trailing ``_`` (a parameter such as ``b``, passed
    again to the resume function)."""
    names = {}
    given = {}  # wanted name -> name actually used

    def give(node, wanted):
        if isinstance(node, ast.Name):
            node = node.id
        if not (isinstance(node, str) and TEMP_RE.match(node)) or node in names:
            return False
        if wanted not in given:
            candidate = wanted
            while candidate in taken:
                candidate += "_"
            given[wanted] = candidate
            taken.add(candidate)
        names[node] = given[wanted]
        return True

    def role(node):
        return names.get(node.id) if isinstance(node, ast.Name) else None

    assigns = _assigns(func)
    aliases, makers = _resume_aliases(assigns, resume_params)
    for node in ast.walk(func):
        # ``__resume_at_...(cells)(...)``: the resume function made with its closure cells,
        # called at once (the collapsed form of resume_fn = ...; resume_fn(...))
        if isinstance(node, ast.Call) and _resume_maker(node.func, aliases):
            makers.add(id(node.func))
            for arg in node.func.args:
                give(arg, "frame_cells")
    for block in _blocks(func):
        for stmt in block:
            for node in ast.walk(stmt):
                if not isinstance(node, ast.Call) or id(node) in makers:
                    continue
                callee = node.func.func if _resume_maker(node.func, aliases) else node.func
                if not isinstance(callee, ast.Name):
                    continue
                target = aliases.get(callee.id)
                if target is None:
                    continue
                params = resume_params[target]
                give(node.func, "resume_fn")
                nested = [p for p in params if p in _NESTED_ARGS]
                for arg, param in zip(node.args, params):
                    if isinstance(arg, ast.Starred):
                        give(arg.value, "live_values")
                        break
                    give(arg, param.lstrip("_"))
                live = params[len(nested):]
                for other in block:
                    start = _order_store(other, len(live))
                    if start is not None:
                        give(other.targets[0].value, "live_values")
                        for item, param in zip(other.value.elts, live[start:]):
                            give(item, param)
    values = dict(assigns)
    for target, value in assigns:
        if id(value) in makers:  # resume_fn = __resume_at_...(nested_cells[-1])
            for arg in value.args:
                if isinstance(arg, ast.Name) and give(arg, "frame_cells"):
                    arg = values.get(arg.id)
                if isinstance(arg, ast.Subscript):
                    give(arg.value, "nested_cells")
    found = True
    while found:
        found = False
        for target, value in assigns:
            if not isinstance(value, ast.List) or len(value.elts) != 1:
                continue
            item = value.elts[0]
            wanted = names.get(target, "").rstrip("_")
            if wanted == "nested_frame_values" and isinstance(item, ast.Subscript):
                found |= give(item.value, "frame_values")
            elif wanted == "frame_values":
                found |= give(item, "live_values")
    for node in ast.walk(func):
        for keyword in getattr(node, "keywords", ()):
            if keyword.arg is None:  # f(**T): the keyword arguments of a call
                give(keyword.value, "call_kwargs")
        if isinstance(node, ast.Call):
            for arg in node.args:
                if isinstance(arg, ast.Starred):  # f(*T): its positional arguments
                    give(arg.value, "call_args")
    uses = _uses(func)
    for target, value in assigns:
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                and value.value.id.startswith("graph_out") \
                and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, int):
            give(target, "%s_%d" % (value.value.id, value.slice.value))
        elif isinstance(value, ast.List) and value.elts \
                and all(isinstance(e, ast.Tuple) for e in value.elts):
            give(target, "cells")
        elif TEMP_RE.match(target) and not any(isinstance(n.ctx, ast.Load)
                                               for n in uses.get(target, ())):
            give(target, "_")
    walrus = {node.target.id: node.value for node in ast.walk(func)
              if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name)}
    for target, value in assigns:
        # what it was read from: a variable, an attribute (a bound method), a dict key, an
        # item (seen through the decompiler's ``(tmp_3 := ...)`` names of values used again);
        # a graph's result, kept aside while Dynamo deletes its temporaries
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id.startswith("__compiled_fn_"):
            give(target, "graph_out")
            continue
        wanted = _read_name(value, walrus)
        if wanted:
            give(target, wanted)
    return names


def _read_name(node, walrus, depth=0):
    """A name for the value ``node`` reads: the variable, attribute or dict key it is read
    from, ``layers_0`` for ``x.layers[0]``; a ``tmp_N`` the decompiler named with ``:=`` is
    what it was set to (``walrus``: {name: value}). None when nothing says."""
    while isinstance(node, ast.NamedExpr):
        node = node.value
    if isinstance(node, ast.Name):
        if node.id in walrus and depth < 8:
            return _read_name(walrus[node.id], walrus, depth + 1)
        return None if TEMP_RE.match(node.id) else node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.slice.value
        if isinstance(key, str) and key.isidentifier():
            return key
        if type(key) is int and key >= 0 and depth < 8:
            base = _read_name(node.value, walrus, depth + 1)
            return "%s_%d" % (base, key) if base else None
    return None


def _resume_maker(node, aliases):
    """Is ``node`` a call of a resume function's global with its cells (which makes the
    function that is then called)?"""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id in aliases and not node.keywords


def _inline_all(tree, func_name, check):
    """(tree, changed?) with every temporary read once inlined where the file still verifies:
    all at once if that verifies, else one at a time, last first (inlining a later value first
    keeps an earlier one's place in order), repeated until nothing more can be inlined."""
    candidates = _inline_candidates(function_named(tree, func_name))
    if not candidates:
        return tree, False
    trial = copied(tree)
    for name in candidates:
        _inline(trial, func_name, name, in_place=True)
    if check(_unparse(trial) + "\n"):
        return trial, True
    changed, checks, refused = False, 0, set()
    progress = True
    while progress and checks < _MAX_CHECKS:
        progress = False
        for name in reversed(_inline_candidates(function_named(tree, func_name))):
            if name in refused or checks >= _MAX_CHECKS:
                continue
            trial = _inline(tree, func_name, name)
            checks += 1
            if trial is not None and check(_unparse(trial) + "\n"):
                tree, changed, progress = trial, True, True
                refused.clear()  # a refused one may fit now that its neighbour moved
            else:
                refused.add(name)
    return tree, changed


def _renamed(tree, func_name, names):
    renamed = copied(tree)
    _Rename(names).visit(function_named(renamed, func_name))
    return renamed


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            node.id = self.names[node.id]
        return node


def readable_source(text, func_name, code, check, resume_codes=()):
    """``text`` (a module defining ``func_name``, decompiled from ``code``) rewritten to read
    like the user's code, or None when nothing could be rewritten.

    ``check(candidate_text)`` is the verification of the file as the caller will write it; a
    rewrite is kept only when it returns true. ``resume_codes``: {global name: code object} of
    the resume functions the code calls (their parameter names name the values passed)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    func = function_named(tree, func_name)
    if func is None:
        return None
    # comments would be lost by re-rendering: whole-line comments right above a def or class
    # (the decompiler's own marks, e.g. ``# dynalens: not exact: ...``) are put back above
    # it; a file with comments anywhere else is left as it is
    marks = _marks(text, tree)
    if marks is None:
        return None
    inner_check = check

    def check(candidate):
        return inner_check(_with_marks(candidate, marks))

    changed = False
    collapsed = collapse(tree, func_name)
    if collapsed is not None and check(_unparse(collapsed) + "\n"):
        tree, changed = collapsed, True
    tree, inlined = _inline_all(tree, func_name, check)
    changed |= inlined
    func = function_named(tree, func_name)
    taken = _global_names(code) | set(_touched_locals(code)) | set(code.co_freevars) \
        | set(code.co_cellvars) | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                                   and not TEMP_RE.match(n.id)}
    params = {}
    for global_name, rcode in dict(resume_codes).items():
        params[global_name] = _parameters(rcode)
    names = _role_names(func, params, taken)
    if names:
        renamed = _renamed(tree, func_name, names)
        if check(_unparse(renamed) + "\n"):
            tree, changed = renamed, True
        else:  # one temporary at a time: a name that does not verify is not given
            for temp in sorted(names):
                trial = _renamed(tree, func_name, {temp: names[temp]})
                if check(_unparse(trial) + "\n"):
                    tree, changed = trial, True
    if not changed:
        return None
    text = _unparse(tree) + "\n"
    return _with_marks(_order_notes(text, func_name, params), marks)


def _starts(tree):
    """{anchor: (first line, column)} for every def/class (anchor ("def", name)) and every
    top-level statement (anchor ("top", index)), decorators included."""
    starts = {}
    for index, node in enumerate(tree.body):
        starts[("top", index)] = (_first_line(node), node.col_offset)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            starts.setdefault(("def", node.name), (_first_line(node), node.col_offset))
    return starts


def _first_line(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])


def _marks(text, tree):
    """[(comment line, anchor)] for every comment in ``text``: each must be a whole line right
    above a def/class or a top-level statement (the decompiler's marks and the lens's
    notes are); None when one is anywhere else (it could not be put back)."""
    lines = text.split("\n")
    below = {}
    for anchor, (row, _) in _starts(tree).items():
        if anchor[0] == "def" or row not in below:
            below[row] = anchor
    rows = _comment_rows(text)
    marks = []
    for row in sorted(rows):
        following = row + 1
        while following in rows:
            following += 1
        if not lines[row - 1].lstrip().startswith("#") or following not in below:
            return None
        marks.append((lines[row - 1].strip(), below[following]))
    return marks


def _with_marks(text, marks):
    """``text`` with each mark put back right above its anchor (same indentation)."""
    if not marks:
        return text
    starts = _starts(ast.parse(text))
    lines = text.split("\n")
    inserts = {}
    for comment, anchor in marks:
        if anchor in starts:
            inserts.setdefault(starts[anchor], []).append(comment)
    for (row, col), comments in sorted(inserts.items(), reverse=True):
        lines[row - 1:row - 1] = [" " * col + c for c in comments]
    return "\n".join(lines)


def _order_notes(text, func_name, resume_params):
    """``text`` with ``# = b, x`` after the statement that puts this frame's live values in
    the resume function's parameter order: which user variable each position is."""
    func = function_named(ast.parse(text), func_name)
    aliases, makers = _resume_aliases(_assigns(func), resume_params)
    notes = {}
    for block in _blocks(func):
        for stmt in block:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    target = aliases.get(node.func.id)
                    if target is None or id(node) in makers:
                        continue
                    live = [p for p in resume_params[target] if p not in _NESTED_ARGS]
                    for other in block:
                        start = _order_store(other, len(live))
                        if start is not None:
                            notes[other.lineno] = "# = %s" % ", ".join(live[start:])
    summaries = resume_summaries(func, resume_params)
    lines = text.split("\n")
    for lineno, note in notes.items():
        lines[lineno - 1] += "  " + note
    for lineno in sorted(summaries, reverse=True):
        row = lines[lineno - 1]
        indent = row[:len(row) - len(row.lstrip())]
        lines.insert(lineno - 1, indent + "# in effect: " + summaries[lineno])
    return "\n".join(lines)


def _order_store(stmt, count):
    """k when ``stmt`` is ``L[k:] = [ek, ..., e(count-1)]`` -- Dynamo putting a frame's values
    in the order of the resume function's ``count`` parameters (the first k, the values the
    frame had on its stack, are in place already) -- else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Subscript)
            and isinstance(stmt.targets[0].slice, ast.Slice)
            and stmt.targets[0].slice.upper is None and stmt.targets[0].slice.step is None
            and isinstance(stmt.value, ast.List) and stmt.value.elts):
        return None
    lower = stmt.targets[0].slice.lower
    start = 0 if lower is None else lower.value if isinstance(lower, ast.Constant) else None
    if not isinstance(start, int) or start + len(stmt.value.elts) != count:
        return None
    return start


def _resume_aliases(assigns, resume_params):
    """{name: resume global} for every name the resume function is called by: the global
    itself, a temporary it was loaded into, or a temporary holding what the global returned
    when called with the frame's cells (a resume function that has closure cells is made by
    a call that binds them); and the ids of those making calls."""
    aliases = {name: name for name in resume_params}
    makers = set()  # ids of the calls that make a resume function (not calls of one)
    for target, value in assigns:
        if isinstance(value, ast.Name) and value.id in resume_params:
            aliases[target] = value.id
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id in resume_params:
            aliases[target] = value.func.id
            makers.add(id(value))
    return aliases, makers


def _comment_rows(text):
    """Line numbers (1-based) of ``text`` that already end in a comment."""
    if "#" not in text:
        return set()   # (a comment starts with one; the decompiled body seldom has any)
    return _tokenized_comment_rows(text)


def _tokenized_comment_rows(text):
    """_comment_rows by the tokenizer, for any text."""
    import io
    import tokenize

    rows = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                rows.add(tok.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    return rows


def line_comments(text, func_name, code, compiled):
    """``text`` with each statement of ``func_name`` ending in ``# file.py:LINE``, the user's
    line its instructions come from (Dynamo's line table, matched to the recompiled code's
    instructions by aligning opnames and arguments, as :mod:`relabel` does).

    ``compiled``: the code object compiled from ``text`` (lines as in ``text``).
    """
    if compiled is None:
        return text
    def keyed(c):
        out = []
        for ins in dis.get_instructions(c):
            if ins.opname in _SKIP:
                continue
            pos = getattr(ins, "positions", None)
            line = pos.lineno if pos is not None and pos.lineno else None
            out.append((_key(ins.opcode, ins.opname, ins.argval), line))
        return out

    ours, theirs = keyed(compiled), keyed(code)
    matcher = difflib.SequenceMatcher(None, [k for k, _ in ours], [k for k, _ in theirs],
                                      autojunk=False)
    user = {}
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            line, source_line = ours[a + k][1], theirs[b + k][1]
            if line is not None and source_line is not None:
                user.setdefault(line, []).append(source_line)
    # an instruction found once on each side is the same instruction wherever the alignment
    # went (the recompiled code builds a resume call's lists in far fewer instructions)
    for key, (line, source_line) in _unique_pairs(ours, theirs).items():
        if line is not None and source_line is not None and line not in user:
            user[line] = [source_line]
    try:
        func = function_named(ast.parse(text), func_name)
    except SyntaxError:
        return text
    if func is None:
        return text
    base = os.path.basename(code.co_filename)
    lines = text.split("\n")
    # the rows that already end in a comment, tokenized only when a statement's row holds a
    # '#' (the file's header comments always do, its statements seldom)
    hashed = {row for row, line in enumerate(lines, 1) if "#" in line}
    commented = None
    for node in ast.walk(func):
        if not isinstance(node, ast.stmt) or node is func:
            continue
        if isinstance(node, (ast.If, ast.While)):
            # the header: its test's instructions are the ones on its line
            if node.test.end_lineno != node.lineno or node.body[0].lineno == node.lineno:
                continue
        elif hasattr(node, "body") or node.lineno != node.end_lineno:
            continue
        found = list(user.get(node.lineno, ()))
        if not found:
            continue
        row = node.lineno - 1
        # the line most of the statement's instructions come from
        best = max(sorted(set(found)), key=found.count)
        if node.lineno in hashed and commented is None:
            commented = _comment_rows(text)
        if node.lineno in hashed and node.lineno in commented:
            lines[row] += "; %s:%d" % (base, best)
        else:
            lines[row] += "  # %s:%d" % (base, best)
    return "\n".join(lines)


def _unique_pairs(ours, theirs):
    """{key: (our line, their line)} for each instruction key found exactly once on each
    side."""
    def once(seq):
        counts = {}
        for key, line in seq:
            counts.setdefault(key, []).append(line)
        return {key: lines[0] for key, lines in counts.items() if len(lines) == 1}

    mine, other = once(ours), once(theirs)
    return {key: (mine[key], other[key]) for key in mine if key in other}


class _Unknown(Exception):
    """A statement the summary does not model: no summary from here on."""


class _Lists(object):
    """What Dynamo's list shuffling amounts to, for a comment only (nothing runs or is
    verified from it): variables hold either an expression's text or a list, lists are
    shared objects (``frame_values[0]`` *is* ``live_values``), and the list operations
    Dynamo's resume-call code uses are applied to them. Anything else -- a call that is
    given a list, a loop, a ``try`` -- stops the summary."""

    def __init__(self):
        self.vars = {}

    def copy(self):
        new = _Lists()
        memo = {}

        def dup(value):
            if isinstance(value, list):
                if id(value) not in memo:
                    memo[id(value)] = []
                    memo[id(value)].extend(dup(v) for v in value)
                return memo[id(value)]
            return value
        new.vars = {k: dup(v) for k, v in self.vars.items()}
        return new

    def _mentions_list(self, node):
        return any(isinstance(n, ast.Name) and isinstance(self.vars.get(n.id), list)
                   for n in ast.walk(node))

    def value(self, node):
        if isinstance(node, ast.List):
            out = []
            for item in node.elts:
                if isinstance(item, ast.Starred):
                    inner = self.value(item.value)
                    if not isinstance(inner, list):
                        raise _Unknown()
                    out.extend(inner)
                else:
                    out.append(self.value(item))
            return out
        if isinstance(node, ast.Name):
            return self.vars.get(node.id, node.id)
        if isinstance(node, ast.Subscript):
            base = self.value(node.value) if isinstance(node.value, ast.List) \
                or self._mentions_list(node.value) else None
            if isinstance(base, list):
                index = node.slice
                if isinstance(index, ast.Constant) and isinstance(index.value, int):
                    try:
                        return base[index.value]
                    except IndexError:
                        raise _Unknown()
                if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) \
                        and isinstance(index.operand, ast.Constant):
                    return base[-index.operand.value] if base else _fail()
                bounds = _const_slice(index)
                return list(base[bounds[0]:bounds[1]])
        if self._mentions_list(node):
            raise _Unknown()
        return _unparse(node)

    def run(self, block, resume_params, aliases, notes):
        for stmt in block:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
                        and stmt.value.func.id in aliases and isinstance(target, ast.Name):
                    # a resume function made with its cells: it is that function
                    self.vars[target.id] = stmt.value.func.id
                    continue
                value = self.value(stmt.value)
                if isinstance(target, ast.Name):
                    self.vars[target.id] = value
                elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
                    base = self.value(target.value)
                    if not isinstance(base, list) or not isinstance(value, list):
                        raise _Unknown()
                    lower, upper = _const_slice(target.slice)
                    base[lower:upper] = value
                else:
                    raise _Unknown()
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Attribute) \
                    and stmt.value.func.attr in ("extend", "append") \
                    and len(stmt.value.args) == 1 and not stmt.value.keywords:
                base = self.value(stmt.value.func.value)
                item = self.value(stmt.value.args[0])
                if not isinstance(base, list) or (stmt.value.func.attr == "extend"
                                                  and not isinstance(item, list)):
                    raise _Unknown()
                base.extend(item) if stmt.value.func.attr == "extend" else base.append(item)
            elif isinstance(stmt, ast.Delete) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name):
                    continue  # the value it named lives on where it was put
                base = self.value(target.value) if isinstance(target, ast.Subscript) else None
                if not isinstance(base, list) or not base:
                    raise _Unknown()
                index = self.value(target.slice)
                if index not in ("-1", "0"):
                    raise _Unknown()
                del base[int(index)]
            elif isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[-1],
                                                                        ast.Return):
                if self._mentions_list(stmt.test):
                    raise _Unknown()
                try:
                    self.copy().run(stmt.body, resume_params, aliases, notes)
                except _Unknown:
                    pass
                self.run(stmt.orelse, resume_params, aliases, notes)
            elif isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Call):
                self._resume_call(stmt, resume_params, aliases, notes)
                return
            elif isinstance(stmt, ast.Expr) and not self._mentions_list(stmt.value):
                continue
            else:
                raise _Unknown()

    def _resume_call(self, stmt, resume_params, aliases, notes):
        call = stmt.value
        if not isinstance(call.func, ast.Name) or call.func.id not in aliases \
                or len(call.args) != 3 or not isinstance(call.args[2], ast.Starred):
            return
        params = resume_params[aliases[call.func.id]]
        nested = [self.value(a) for a in call.args[:2]]
        values = self.value(call.args[2].value)
        live = [p for p in params if p not in _NESTED_ARGS]
        if nested != [[], []] or not isinstance(values, list) or len(values) != len(live) \
                or any(isinstance(v, list) for v in values):
            return  # nested frames: their lists are the summary's limit
        callee = self.vars.get(call.func.id, call.func.id)
        notes[stmt.lineno] = "return %s(%s)" % (callee, ", ".join(
            "%s=%s" % (p, v) for p, v in zip(live, values)))


def _fail():
    raise _Unknown()


def _const_slice(node):
    if not isinstance(node, ast.Slice) or node.step is not None:
        raise _Unknown()
    bounds = []
    for bound in (node.lower, node.upper):
        if bound is None:
            bounds.append(None)
        elif isinstance(bound, ast.Constant) and isinstance(bound.value, int):
            bounds.append(bound.value)
        elif isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub) \
                and isinstance(bound.operand, ast.Constant):
            bounds.append(-bound.operand.value)
        else:
            raise _Unknown()
    return bounds


def resume_summaries(func, resume_params):
    """{line of a ``return resume_fn(...)``: ``return __resume_at_102_2(b=b, x=graph_out_0[1])``}:
    which value each parameter of the resume function gets, found by following the list
    operations before the call (for the reader only; see :class:`_Lists`)."""
    aliases, _ = _resume_aliases(_assigns(func), resume_params)
    notes = {}
    try:
        _Lists().run(func.body, resume_params, aliases, notes)
    except (_Unknown, RecursionError, TypeError, ValueError):
        pass
    return notes
