"""Does recompiled source give the same bytecode as the original code object?

"Exact" is the decompiler's one measure of success, used by the tests, the stdlib round-trip
benchmark and the lens (which only swaps in a code object that verifies). Raw bytes cannot be
compared: offsets, EXTENDED_ARG prefixes, constant/name table order and line tables legitimately
change when equivalent source is laid out differently. So both sides are first normalized to
what the interpreter will actually *do*:

* opnames and arguments as values (names, constants by type and value, compare operators, flag
  bits shown by ``dis``), never as table indices;
* jump targets as the index of the target instruction, not a byte offset (3.8-3.9 absolute byte
  offsets, 3.10 instruction-count arguments, 3.11+ relative forward/backward jumps all end up
  the same);
* EXTENDED_ARG, CACHE entries, NOPs and line numbers dropped: they only follow from layout
  (NOPs exist only to carry a line event);
* exception tables (3.11+) as merged ranges of instruction indices;
* nested code objects compared recursively where they are loaded, so the first difference is
  reported in program order;
* what the compiler decides from line numbers brought to one form: 3.13+ superinstructions
  split into their halves, 3.14+ LOAD_FAST_BORROW read as LOAD_FAST, a class body's recorded
  ``__firstlineno__`` ignored, and jumps threaded, inverted over a hopped-over jump, folded in
  ``and``/``or`` chains and dropped when they go to the next instruction (the compiler does
  each only between instructions on the same line). Each rewrite keeps behaviour: two programs
  that differ in what they do still differ after it.

Handed the true source, or ``ast.unparse`` of it, this is exact on the whole stdlib.

Normalizing is the slow part, and most comparisons need none: code objects with the same
bytes, names and constants (``_same_tree`` for a whole tree, ``_identical`` for one), or with
the same instructions and constants in other ``co_consts`` slots (``_constants_moved``),
cannot differ once normalized. A fast path only ever says "no difference" and leaves every
other verdict to the normalized comparison; tests/test_verify_fast_paths.py holds each to
the normalized verdict on real code.

``strict=True`` drops the last group of rewrites: line-number NOPs are kept, superinstructions
and borrowed loads stay as compiled, and jumps are compared in the form the compiler left them.
What the compiler decided from the line layout then counts, so source whose statements and
line breaks fall differently (``ast.unparse`` of the original joins every multi-line
expression) can be exact but not strictly exact. It measures how close the output's layout
comes to the original's (issue 12's strict figure), not behaviour.

Everything here is pure stdlib and runs on CPython 3.8 to 3.15.
"""

import bisect
import dis
import operator
import sys
import warnings

from .comparison_keys import (
    SUPERINSTRUCTIONS as _SUPERINSTRUCTIONS, const_key as _const_key,
    jump_target as _jump_target, split_superinstructions as _split_superinstructions)

try:  # the decompiler shares its disassembly of the original; verify.py also works alone
    from .decode import exception_table
    from .instructions import raw_instructions, shared_cache
except ImportError:
    def raw_instructions(code):
        return list(dis.get_instructions(code))

    def exception_table(code):
        return [tuple(entry)[:5] for entry in getattr(dis.Bytecode(code), "exception_entries",
                                                      ())]

    def shared_cache(name):
        return None

__all__ = ["VerifyResult", "verify", "check_tree", "compiled_source", "verdict_key", "Difference",
           "SOURCE_DOES_NOT_COMPILE"]

# Every difference for source that fails to compile starts with this, so that callers (the
# round-trip benchmark) can count such outputs without compiling a second time.
SOURCE_DOES_NOT_COMPILE = "source does not compile"

# co_flags bits whose change alters behaviour. Future-import and optimisation bits are left
# out: they follow from how the text was compiled, not from the code itself.
_FLAG_NAMES = {
    0x0004: "VARARGS",
    0x0008: "VARKEYWORDS",
    0x0020: "GENERATOR",
    0x0080: "COROUTINE",
    0x0100: "ITERABLE_COROUTINE",
    0x0200: "ASYNC_GENERATOR",
}
_FLAG_MASK = sum(_FLAG_NAMES)
_CO_NEWLOCALS = 0x0002  # set for functions, not for class bodies and modules
_CO_HAS_DOCSTRING = 0x4000000  # 3.14+: docstring presence is a flag, not a None in co_consts[0]

_DROPPED = frozenset(["EXTENDED_ARG", "CACHE", "NOP"])
_ENCODING_ONLY = frozenset(["EXTENDED_ARG", "CACHE"])  # what strict comparison drops
_CONST_OPS = frozenset(dis.hasconst)
_CodeType = type(compile("", "", "exec"))


_IGNORE_ALL = ("ignore", None, Warning, None, 0)  # simplefilter("ignore")'s entry
# Where the warnings module keeps one module-level filter list (3.8-3.13; 3.14 can keep them
# per context), compiling quietly swaps that list itself (see _compile_quietly).
_SWAP_FILTERS = sys.version_info < (3, 14) and hasattr(warnings, "_filters_mutated") and \
    isinstance(getattr(warnings, "filters", None), list)


def _compile_quietly(source, filename):
    """``compile(source, filename, "exec", dont_inherit=True)`` with every warning ignored.

    What ``with catch_warnings(): simplefilter("ignore")`` does, at a fraction of its cost
    (verification compiles once per decompiled output): the module's filter list is replaced,
    for the compile, by one whose first entry ignores every warning (what simplefilter puts
    first: nothing after it is ever consulted), and put back after, the cache of filter
    decisions invalidated both times as catch_warnings does."""
    if not _SWAP_FILTERS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return compile(source, filename, "exec", dont_inherit=True)
    saved = warnings.filters
    warnings.filters = [_IGNORE_ALL]
    warnings._filters_mutated()
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    finally:
        warnings.filters = saved
        warnings._filters_mutated()


class VerifyResult(object):
    """Outcome of :func:`verify`; truthy exactly when the bytecode matches.

    ``difference`` says where the first mismatch is, in words a person can act on;
    ``compiled`` is the recompiled code object that was compared (None when the source did not
    compile or held no matching code object). ``how`` says what made it exact: ``"bytecode"``
    (the normalized instructions are the same) or ``"dataflow"`` (asked for with
    ``temporaries=True``: the same operations in the same order, some values held in
    temporaries where the original kept them on the stack; see :mod:`dataflow`).
    """

    __slots__ = ("exact", "difference", "compiled", "how")

    def __init__(self, exact, difference=None, compiled=None, how=None):
        self.exact = bool(exact)
        self.difference = difference
        self.compiled = compiled
        self.how = how if exact else None

    def __bool__(self):
        return self.exact

    __nonzero__ = __bool__

    def __repr__(self):
        if self.exact:
            return "VerifyResult(exact=True)"
        return "VerifyResult(exact=False, difference=%r)" % (self.difference,)


def verify(code, source, temporaries=False, reserved=None, strict=False, *, verdict_only=False):
    """Recompile ``source`` and compare its bytecode with ``code``, normalized.

    With ``temporaries=True``, source whose bytecode differs only in holding some values in
    local variables of its own (where ``code`` kept them on the value stack) is exact too,
    with ``how == "dataflow"``: for generated code such as Dynamo's, which no source compiles
    to, this is the strongest claim there is (same operations, same order, same operands).

    ``source`` is compiled with ``code``'s filename. For a module code object the module itself
    is compared; otherwise the nested code object with the same qualified name (3.11+) or name
    is looked up in the recompiled module. Never raises for bad source: a SyntaxError (or any
    other compile failure) is a non-exact result whose difference carries the error text.

    ``reserved`` (name -> object, with ``temporaries``): globals the source reads where ``code``
    loads that very object as a constant with no literal form (see :mod:`dataflow`).

    ``strict``: compare without the rewrites that undo line-layout decisions (see the module
    docstring): NOPs, superinstructions and jump forms must match too.

    ``verdict_only``: the caller reads only whether the source is exact (the lens trying
    rewrites); a result that is not exact may then say only that, without its first difference.
    """
    if not isinstance(code, _CodeType):
        raise TypeError("verify() needs a code object as its first argument, got %s"
                        % type(code).__name__)
    if not isinstance(source, (str, bytes)):
        raise TypeError("verify() needs the source as str (or bytes), got %s"
                        % type(source).__name__)
    try:
        # SyntaxWarnings would name the original file with the candidate's line numbers:
        # misleading, and noise inside a user's program.
        module = _compile_quietly(source, code.co_filename)
    except SyntaxError as exc:
        return VerifyResult(False, "%s: %s: %s (line %s)" % (
            SOURCE_DOES_NOT_COMPILE, type(exc).__name__, exc.msg, exc.lineno))
    except Exception as exc:  # ValueError (null bytes), RecursionError, MemoryError ...
        return VerifyResult(False, "%s: %s: %s" % (
            SOURCE_DOES_NOT_COMPILE, type(exc).__name__, exc))

    if code.co_name == "<module>":
        candidates = [module]
    else:
        candidates = _find_candidates(module, code)
        if not candidates:
            return VerifyResult(False, "first difference: no code object named %r in the "
                                "recompiled source" % (_qualname(code),))
    held = tuple(sorted((reserved or {}).items(), key=lambda item: item[0]))
    if temporaries and _bytecode_cannot_match(code, candidates):
        # (the usual case for generated code: its temporaries are locals the original lacks)
        # a dataflow match is then the verdict; the bytecode comparisons below are only run
        # for the text of a difference
        for candidate in candidates:
            if _remembered("dataflow", code, candidate, held, lambda: _dataflow(
                    code, candidate, reserved)) is None:
                return VerifyResult(True, None, candidate, how="dataflow")
        if verdict_only:
            return VerifyResult(False, "not exact (the first difference was not worked out)",
                                candidates[0])
    first = None
    for candidate in candidates:
        if _same_tree(code, candidate):  # (the same bytes throughout: exact, strict or not)
            return VerifyResult(True, None, candidate, how="bytecode")
        difference = _remembered(("bytecode", strict), code, candidate, (), lambda: _Comparer(
            code, candidate, strict=strict).run())
        if difference is None:
            return VerifyResult(True, None, candidate, how="bytecode")
        if first is None:
            first = VerifyResult(False, "first difference: " + difference, candidate)
    if temporaries:
        for candidate in candidates:
            flow = _remembered("dataflow", code, candidate, held, lambda: _dataflow(
                code, candidate, reserved))
            if flow is None:
                return VerifyResult(True, None, candidate, how="dataflow")
            if candidate is first.compiled:
                first.difference += "; as dataflow: " + flow
    return first


def _bytecode_cannot_match(code, candidates):
    """True when no bytecode comparison of ``code`` with one of ``candidates`` can find them
    the same: each candidate has other local variables (every way _Comparer._compare can
    answer "no difference" for the top code object reads ``co_varnames`` equal)."""
    return all(candidate.co_varnames != code.co_varnames for candidate in candidates)


def _remembered(kind, code, candidate, held, compare):
    """``compare()``, the verdict on ``candidate`` against ``code`` -- computed once per shape
    of ``candidate`` within a :func:`instructions.shared_disassembly` block.

    The lens verifies one function's file several times as it is written (rewritten, then
    with its header note and its line comments): the recompiled code differs only in line
    numbers, which neither comparison reads, so the verdict cannot differ. ``held``: what
    else the verdict depends on (reserved constants: names and the objects themselves, kept
    alive here so that their ids stay theirs)."""
    cache = shared_cache("verdicts")
    if cache is None:
        return compare()
    key = (kind, id(code), _shape(candidate), tuple((name, id(obj)) for name, obj in held))
    hit = cache.get(key)
    if hit is not None and hit[0] is code:
        return hit[1]
    verdict = compare()
    cache[key] = (code, verdict, held)
    return verdict


def _shape(code):
    """Everything of ``code`` either comparison can read, line numbers left out."""
    return (code.co_code, code.co_flags, code.co_argcount, getattr(code, "co_posonlyargcount", 0),
            code.co_kwonlyargcount, code.co_stacksize, code.co_varnames, code.co_freevars,
            code.co_cellvars, code.co_names, code.co_name, _qualname(code),
            getattr(code, "co_exceptiontable", None),
            tuple(_shape(c) if isinstance(c, _CodeType) else (type(c), _const_key(c))
                  for c in code.co_consts))


class Difference(object):
    """One code object of the original whose recompiled counterpart does not match.

    ``code`` is the original, ``compiled`` its counterpart in the recompiled source (None when
    the source does not compile or has none), ``line`` where a person should look in that
    source (the counterpart's first line, the syntax error's line, else 1) and ``difference``
    the first mismatch in words. ``reach``: when the mismatch is an instruction, the offset
    in ``code`` of the furthest instruction it involves (itself, or the target of a jump
    there on either side); None otherwise. Every instruction before the mismatch matched, so
    a change of reading that only alters code after ``reach`` cannot remove it (choices.py
    skips such changes). ``at``: the offset in ``code`` of the first differing instruction
    itself (None past its end, or when the mismatch is no instruction): choices.py tries the
    changes of reading nearest to it first."""

    __slots__ = ("code", "compiled", "line", "difference", "reach", "at")

    def __init__(self, code, compiled, line, difference, reach=None, at=None):
        self.code, self.compiled, self.line, self.difference = code, compiled, line, difference
        self.reach = reach
        self.at = at

    def __repr__(self):
        return "Difference(%s, line %s: %s)" % (_qualname(self.code), self.line, self.difference)


def check_tree(code, source, temporaries=False, skip=(), module=None):
    """Verify ``source`` against ``code`` and every code object nested in it, one by one.

    Returns ``(differences, found)``: a :class:`Difference` for each original code object whose
    own bytecode (or, with ``temporaries``, dataflow) does not match its counterpart, in
    program order, and ``found``, mapping ``id(original)`` to its recompiled counterpart for
    the code objects in ``skip`` (ids of originals the caller replaced on purpose: they and
    what they hold are not compared). ``source`` is compiled once; when it matches as a whole
    (the usual case) each code object is normalized once. Counterparts are paired by name and
    order among the code objects each side loads, so one mismatch does not hide another.
    ``module``: ``source`` as :func:`compiled_source` compiled it, when the caller did (it is
    not compiled again)."""
    skip = frozenset(skip)
    found = {}
    try:
        if module is None:
            module = _compile_quietly(source, code.co_filename)
    except SyntaxError as exc:
        return [Difference(code, None, exc.lineno or 1, "%s: %s: %s (line %s)" % (
            SOURCE_DOES_NOT_COMPILE, type(exc).__name__, exc.msg, exc.lineno))], found
    except Exception as exc:
        return [Difference(code, None, 1, "%s: %s: %s" % (
            SOURCE_DOES_NOT_COMPILE, type(exc).__name__, exc))], found
    compared = None  # a candidate already compared as a whole, and found to differ
    if code.co_name == "<module>":
        candidates, complete = [module], True
    else:
        candidates, complete = _candidates(module, code, stop_at_exact=not skip)
        # the usual case: the first candidate, the first code object with the same qualified
        # name (or qualname tail), matches; the walk of every other code object in the
        # recompiled source stopped there, and goes on only when it differs (any match
        # gives the same verdict). Most often every code object in it has its original's
        # very bytes, names and constants (_same_tree).
        if not complete and _same_tree(code, candidates[0]):
            return [], found
    undecided = True  # (whether a comparison of the whole tree may still find no difference)
    if temporaries and not skip:
        whole = candidates if complete else _find_candidates(module, code)
        if whole and _bytecode_cannot_match(code, whole):
            # (the usual case for generated code: see verify) the verdict below, without
            # the bytecode comparisons that cannot pass: a dataflow match, or else the
            # differences of the first candidate
            if any(_dataflow(code, candidate) is None for candidate in whole):
                return [], found
            candidates, undecided = whole, False
    cache = _normalized_cache()
    if undecided and not complete:
        if _Comparer(code, candidates[0], cache).run() is None:
            return [], found
        compared = candidates[0]
        candidates = _find_candidates(module, code)
    if not candidates:
        return [Difference(code, None, 1, "no code object named %r in the recompiled source"
                           % (_qualname(code),))], found
    if undecided and not skip:  # the usual case: one comparison of the whole tree says it all
        for candidate in candidates:
            if candidate is not compared and _Comparer(code, candidate, cache).run() is None:
                return [], found
        if temporaries:
            for candidate in candidates:
                if _dataflow(code, candidate) is None:
                    return [], found
    candidate = candidates[0]
    differences = []
    _check_pair(code, candidate, temporaries, skip, found, differences, cache)
    return differences, found


def compiled_source(source, code):
    """``source`` compiled as :func:`check_tree` compiles it to verify it against ``code``;
    None where it does not compile (check_tree, handed the source alone, then says why)."""
    try:
        return _compile_quietly(source, code.co_filename)
    except Exception:  # (SyntaxError, ValueError for null bytes, RecursionError ...)
        return None


def verdict_key(module):
    """What :func:`check_tree`'s verdict on the compiled source ``module`` depends on: two
    modules with the same key get, for the same original and arguments, differences for the
    same original code objects with the same ``reach`` and ``at``. Line numbers are left out
    (neither comparison reads them: see _remembered); they reach the verdict only through
    each difference's ``line`` and the text of a code object's ``repr``."""
    return _shape(module)


def _normalized_cache():
    """Where check_tree's comparisons keep normalized code objects: each is normalized once,
    whatever is compared after (and, within shared_disassembly, in all of a decompile())."""
    cache = shared_cache("normalized")
    return {} if cache is None else cache


def _check_pair(expected, got, temporaries, skip, found, out, cache):
    if id(expected) in skip:
        found[id(expected)] = got
        return
    comparer = _Comparer(expected, got, cache)
    own = comparer.run(nested=False)
    if own is not None and temporaries and _dataflow(expected, got) is None:
        return
    if own is not None:
        out.append(Difference(expected, got, got.co_firstlineno, own, comparer.reach,
                              comparer.at))
    pending = {}
    for child in _nested_codes(got):
        pending.setdefault(child.co_name, []).append(child)
    for child in _nested_codes(expected):
        partners = pending.get(child.co_name)
        if partners:
            _check_pair(child, partners.pop(0), temporaries, skip, found, out, cache)
        elif own is None:  # otherwise the parent's own difference already says it
            out.append(Difference(child, None, got.co_firstlineno, "in %s: no code object "
                                  "named %r in the recompiled source"
                                  % (_qualname(got), child.co_name)))


def _dataflow(expected, got, reserved=None):
    """The dataflow check, with nested code objects compared as bytecode first.

    Imported here, not at the top: only generated code needs it, and verify.py runs with just
    errors.py and comparison_keys.py beside it (the version runner's stand-in decompiler).
    """
    from .dataflow import dataflow_difference

    return dataflow_difference(expected, got, _nested_dataflow, reserved)


def _nested_dataflow(expected, got):
    """_dataflow's check of nested code objects (a function of the module: a nested function
    that passes itself on is a reference cycle, left for the garbage collector)."""
    from .dataflow import dataflow_difference

    if _Comparer(expected, got).run() is None:
        return None
    return dataflow_difference(expected, got, _nested_dataflow)


def _qualname(code):
    return getattr(code, "co_qualname", code.co_name)


def _nested_codes(code):
    for const in code.co_consts:
        if isinstance(const, _CodeType):
            yield const


def _find_candidates(module, code):
    """Code objects in ``module`` that may stand for ``code``, most likely first.

    The same qualified name wins (3.11+; it encodes the path of enclosing names); then the same
    name with a matching qualname tail (a method decompiled on its own loses its class prefix);
    then the same plain name, in breadth-first order so the shallowest comes first.
    """
    return _candidates(module, code)[0]


def _candidates(module, code, stop_at_exact=False):
    """(:func:`_find_candidates`'s list, True); with ``stop_at_exact``, ([the first code
    object with ``code``'s qualified name or a matching qualname tail], False) where the
    breadth-first walk meets one: the walk ends there. That one need not head the full list
    (an exact name deeper in wins there), but check_tree's verdict does not depend on which
    candidate matches, and a method decompiled alone (``C.m`` recompiled as ``m``) then
    stops at its own ``def`` instead of walking every code object nested in it."""
    qualname = _qualname(code)
    name = code.co_name
    code_type = _CodeType
    if stop_at_exact:
        # (the usual case: a code object the module itself loads matches, the first such
        # one is where the walk below stops, and it is found without making the queue)
        for const in module.co_consts:
            if type(const) is code_type and const.co_name == name:
                current_q = _qualname(const)
                if current_q == qualname or qualname.endswith("." + current_q) or \
                        current_q.endswith("." + qualname):
                    return [const], False
    exact, tail, named = [], [], []
    queue = [const for const in module.co_consts if type(const) is code_type]
    for current in queue:  # (breadth-first: the list grows behind the loop, which reads on)
        if current.co_name == name:
            current_q = _qualname(current)
            if current_q == qualname:
                if stop_at_exact:
                    return [current], False
                exact.append(current)
            elif qualname.endswith("." + current_q) or current_q.endswith("." + qualname):
                if stop_at_exact:
                    return [current], False
                tail.append(current)
            else:
                named.append(current)
        queue += [const for const in current.co_consts if type(const) is code_type]
    return exact + tail + named, True



def _relative_qualname(value, top_name):
    """Pre-3.11 MAKE_FUNCTION takes the qualname as a string constant, and every class body
    stores its ``__qualname__``; a function decompiled alone recompiles without its enclosing
    prefix (``Sniffer.sniff.<locals>.dialect`` comes back as ``sniff.<locals>.dialect``), so
    compare from the top code's own name on."""
    marker = top_name + ".<locals>."
    at = value.find(marker)
    if at > 0 and value[at - 1] == ".":
        return value[at:]
    return value


class _Normalized(object):
    """One code object's instructions and exception table, layout removed (``strict``: only
    its encoding removed, see the module docstring)."""

    __slots__ = ("instructions", "keys", "exception_ranges")

    def __init__(self, code, top_name, strict=False):
        raw = raw_instructions(code)
        if not strict and _SUPERINSTRUCTIONS_HERE:
            raw = _split_superinstructions(raw)
        dropped = _ENCODING_ONLY if strict else _DROPPED
        # A dropped instruction (EXTENDED_ARG prefix, NOP) that is jumped to stands for the next
        # kept one; an offset past the end maps to len(kept). A split superinstruction's offset
        # is that of its first half.
        index_at = {}
        kept = []
        names = []
        for ins in raw:
            index_at.setdefault(ins.offset, len(kept))
            name = ins.opname
            if name not in dropped:
                kept.append(ins)
                names.append(name)
        count = len(kept)
        targets = [None] * count
        keys = [None] * count
        plain, const_ops = _PLAIN_CONSTANTS, _CONST_OPS
        for number, ins in enumerate(kept):
            target = _jump_target(ins)
            if target is not None:
                targets[number] = _index_for(index_at, target, count)
                continue
            name = names[number]
            following = names[number + 1] if number + 1 < count else None
            if following in _KEY_CONTEXT or name in _KEY_SPECIAL:
                keys[number] = self._key(ins, number, kept, top_name, strict, code.co_consts)
                continue
            # (_key's last three cases, which read nothing around the instruction)
            if ins.opcode in const_ops:
                value = ins.argval
                if value is _UNRESOLVED:
                    value = code.co_consts[ins.arg]
                kind = type(value)
                keys[number] = (name, (kind.__module__, kind.__qualname__, value)
                                if kind in plain else _const_key(value))
            elif ins.arg is None:
                keys[number] = (name,)
            else:
                value = ins.argval
                kind = type(value)
                keys[number] = (name, (kind.__module__, kind.__qualname__, value)
                                if kind in plain else _const_key(value), ins.argrepr)
        ranges = _exception_ranges(code, index_at, count)
        if strict:
            alive = [True] * count
        else:
            alive = _canonicalize_jumps(names, targets, set(item[2] for item in ranges))
        # Renumber around deleted instructions; a deleted index stands for the next survivor.
        new_index = []
        survivors = 0
        for number in range(count):
            new_index.append(survivors)
            survivors += alive[number]
        new_index.append(survivors)
        self.instructions = [ins for number, ins in enumerate(kept) if alive[number]]
        self.keys = [(names[number], "->", new_index[targets[number]])
                     if targets[number] is not None else keys[number]
                     for number in range(count) if alive[number]]
        self.exception_ranges = _merge_ranges(
            (new_index[start], new_index[stop], new_index[handler], depth, lasti)
            for start, stop, handler, depth, lasti in ranges)

    @staticmethod
    def _key(ins, number, kept, top_name, strict=False, consts=()):
        """The comparison key of the non-jump ``kept[number]`` (``__init__`` writes the
        cases that read no neighbour and no special opname itself)."""
        following = kept[number + 1] if number + 1 < len(kept) else None
        if (following is not None and following.opname == "STORE_NAME"
                and following.argval == "__firstlineno__"):
            # 3.13+ class bodies record their first line (LOAD_CONST, or 3.14's LOAD_SMALL_INT
            # below 256): layout, not behaviour.
            return ("LOAD_CONST", "<line number>")
        if ins.opname == "BUILD_TUPLE" and ins.arg == 0:
            # Generated code (Dynamo's) builds the empty tuple; source always loads the constant.
            return ("LOAD_CONST", _const_key(()))
        if ins.opname in _BORROW and not strict:
            return (_BORROW[ins.opname], _const_key(ins.argval), ins.argrepr)
        if ins.opcode in _CONST_OPS:
            value = ins.argval
            if value is _UNRESOLVED:
                value = consts[ins.arg]
            if isinstance(value, str) and following is not None and (
                    following.opname == "STORE_NAME" and following.argval == "__qualname__"
                    or sys.version_info < (3, 11) and following.opname == "MAKE_FUNCTION"):
                value = _relative_qualname(value, top_name)
            return (ins.opname, _const_key(value))
        if ins.arg is None:
            return (ins.opname,)
        # argrepr carries flag bits that argval drops (LOAD_GLOBAL's NULL push, LOAD_ATTR's
        # method bit, COMPARE_OP's bool conversion); it never holds offsets for non-jumps.
        return (ins.opname, _const_key(ins.argval), ins.argrepr)


# What 3.11's dis (and decode.py with it) gives as the value of a constant instruction other than
# LOAD_CONST: KW_NAMES, whose tuple of keyword names the keys must still hold.
_UNRESOLVED = getattr(dis, "UNKNOWN", object())

# 3.14+ LOAD_FAST_BORROW skips a reference count where the compiler proves it safe; its
# analysis runs on the control-flow graph, which follows layout. Same value, same behaviour.
_BORROW = {"LOAD_FAST_BORROW": "LOAD_FAST"}


def _index_for(index_at, offset, end):
    if offset in index_at:
        return index_at[offset]
    # Offsets inside a CACHE run or past the end: the first instruction at or after it.
    offsets = sorted(index_at)
    at = bisect.bisect_left(offsets, offset)
    if at < len(offsets):
        return index_at[offsets[at]]
    return end


def _exception_ranges(code, index_at, end):
    """3.11+ exception table as (first, last+1, handler, depth, lasti) instruction indices."""
    if sys.version_info < (3, 11):
        return ()
    entries = exception_table(code)
    offsets = sorted(index_at)

    def at_or_after(offset):
        at = bisect.bisect_left(offsets, offset)
        return index_at[offsets[at]] if at < len(offsets) else end

    ranges = []
    for start, end, target, depth, lasti in entries:
        ranges.append((at_or_after(start), at_or_after(end), at_or_after(target), depth,
                       lasti))
    return ranges


def _merge_ranges(ranges):
    """Drop empty ranges and merge ranges that touch and share handler, depth and lasti (the
    compiler splits them at NOPs and line boundaries, which carry no meaning here)."""
    merged = []
    for start, stop, handler, depth, lasti in ranges:
        if start >= stop:
            continue
        item = [start, stop, handler, depth, lasti]
        if merged and merged[-1][1] == start and merged[-1][2:] == item[2:]:
            merged[-1][1] = stop
        else:
            merged.append(item)
    return tuple(tuple(item) for item in merged)


# Jumps whose form depends on line layout. The compiler threads jumps, inverts a conditional
# jump over an unconditional one, and folds `x and y` jump chains only between instructions on
# the same line; these tables let both sides be brought to the same (fully optimized) form.
_UNCONDITIONAL = {"JUMP_FORWARD": "JUMP", "JUMP_BACKWARD": "JUMP", "JUMP_ABSOLUTE": "JUMP",
                  "JUMP": "JUMP", "JUMP_BACKWARD_NO_INTERRUPT": "JUMP_NO_INTERRUPT",
                  "JUMP_NO_INTERRUPT": "JUMP_NO_INTERRUPT"}
_CONDITIONAL = {}
for _sense in ("FALSE", "TRUE", "NONE", "NOT_NONE"):
    for _form in ("POP_JUMP_IF_%s", "POP_JUMP_FORWARD_IF_%s", "POP_JUMP_BACKWARD_IF_%s"):
        _CONDITIONAL[_form % _sense] = "POP_JUMP_IF_" + _sense
_INVERSE = {"POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE", "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE",
            "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE",
            "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE"}
_TEST_AND_POP = {"POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUTH_TO_NEXT",
                 "POP_JUMP_IF_TRUE": "POP_JUMP_IF_TRUTH_TO_NEXT",
                 "POP_JUMP_IF_NONE": "POP_JUMP_IF_NONE_TO_NEXT",
                 "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE_TO_NEXT"}
_OR_POP = {"JUMP_IF_FALSE_OR_POP": ("POP_JUMP_IF_FALSE", "JUMP_IF_TRUE_OR_POP"),
           "JUMP_IF_TRUE_OR_POP": ("POP_JUMP_IF_TRUE", "JUMP_IF_FALSE_OR_POP")}


def _canonicalize_jumps(names, targets, handlers):
    """Rewrite ``names``/``targets`` in place to layout-free jump forms; returns which
    instructions survive (an inverted-over unconditional jump is deleted)."""
    count = len(names)
    for number, name in enumerate(names):
        if targets[number] is not None:
            names[number] = _UNCONDITIONAL.get(name) or _CONDITIONAL.get(name) or name

    def final(target):
        for _ in range(count):  # bounded: `while True: pass` jumps to itself
            if target >= count or names[target] not in ("JUMP", "JUMP_NO_INTERRUPT"):
                break
            target = targets[target]
        return target

    for number, name in enumerate(names):
        if targets[number] is None:
            continue
        if name in ("JUMP", "JUMP_NO_INTERRUPT") or name in _INVERSE:
            targets[number] = final(targets[number])
        elif name in _OR_POP:
            same_pop, opposite = _OR_POP[name]
            for _ in range(count):
                target = final(targets[number])
                targets[number] = target
                if target >= count:
                    break
                if names[target] == name:  # the same test again: it would jump on
                    targets[number] = targets[target]
                    continue
                if names[target] == same_pop:  # the value is tested and popped there
                    names[number], targets[number] = same_pop, final(targets[target])
                elif names[target] in (opposite, _INVERSE[same_pop]):  # falls through there
                    names[number], targets[number] = same_pop, final(target + 1)
                break

    alive = [True] * count
    for _ in range(count):  # each round deletes at least one jump, or it is the last
        if not _drop_jumps(names, targets, handlers, alive, final):
            break
    # A conditional jump to the next surviving instruction only tests and pops, in whichever
    # sense it was written.
    following = count
    for number in range(count - 1, -1, -1):
        if not alive[number]:
            continue
        if names[number] in _INVERSE and _resolve(targets[number], alive) == following:
            names[number] = _TEST_AND_POP[names[number]]
            targets[number] = following
        following = number
    return alive


def _resolve(target, alive):
    """The first surviving instruction at or after ``target`` (deleted ones fall through)."""
    while target < len(alive) and not alive[target]:
        target += 1
    return target


def _drop_jumps(names, targets, handlers, alive, final):
    """One round of deleting unconditional jumps that layout left behind: a jump to the very
    next surviving instruction (the compiler kept a line-number NOP between them), and one
    that a conditional jump merely hops over (inverted there instead). True if any went."""
    count = len(names)
    changed = False
    following = count
    for number in range(count - 1, -1, -1):
        if not alive[number]:
            continue
        if (names[number] in ("JUMP", "JUMP_NO_INTERRUPT")
                and _resolve(final(targets[number]), alive) == following):
            alive[number] = False
            changed = True
            continue
        following = number
    incoming = [0] * (count + 1)
    for number, target in enumerate(targets):
        if target is not None and alive[number]:
            incoming[_resolve(target, alive)] += 1
    for handler in handlers:
        incoming[_resolve(handler, alive)] += 1
    for number in range(count):
        name = names[number]
        if name not in _INVERSE or not alive[number]:
            continue
        after = _resolve(number + 1, alive)
        if after < count and names[after] == "NOT_TAKEN":  # 3.14 branch-monitoring marker
            after = _resolve(after + 1, alive)
        if (after < count and names[after] == "JUMP" and incoming[after] == 0
                and final(_resolve(targets[number], alive))
                == final(_resolve(after + 1, alive))):
            names[number], targets[number] = _INVERSE[name], targets[after]
            alive[after] = False
            changed = True
            incoming[_resolve(targets[number], alive)] += 1
    return changed


def _describe(ins, key, code):
    """``ins`` (of ``code``) with comparison key ``key``, for a difference's text."""
    if ins is None:
        return "end of code"
    if len(key) == 3 and key[1] == "->":
        return "%s to #%d" % (key[0], key[2])
    if ins.arg is None:
        return ins.opname
    if isinstance(ins.argval, _CodeType):
        return "%s <code %s>" % (ins.opname, _qualname(ins.argval))
    if ins.opcode in _CONST_OPS:
        text = repr(code.co_consts[ins.arg] if ins.argval is _UNRESOLVED else ins.argval)
    else:
        text = ins.argrepr
    if not text:  # IS_OP, CONTAINS_OP, CALL ...: the number is the argument
        text = repr(ins.argval)
    if len(text) > 60:
        text = text[:57] + "..."
    return ("%s %s" % (ins.opname, text)).rstrip()


_DOCSTRING_IN_CONSTS = sys.version_info < (3, 14)  # (later: only with _CO_HAS_DOCSTRING)


def _docstring(code):
    """A function's docstring (None without one). A class body's first constant is its
    ``__qualname__``, not a docstring: its docstring is an instruction, compared as such."""
    if code.co_flags & _CO_HAS_DOCSTRING:
        return code.co_consts[0]
    if (_DOCSTRING_IN_CONSTS and code.co_flags & _CO_NEWLOCALS
            and not code.co_name.startswith("<") and code.co_consts
            and isinstance(code.co_consts[0], str)):
        return code.co_consts[0]
    return None


class _Comparer(object):
    """Walks two code objects in step and returns the first difference as text (or None);
    ``reach`` is then the :class:`Difference`'s, for a difference in the code object's own
    instructions; ``at`` the original's offset of the first differing instruction."""

    reach = at = None

    def __init__(self, expected, got, cache=None, strict=False):
        self.strict = strict
        self.expected = expected
        self.got = got
        self.top_name = expected.co_name
        self.got_top_name = got.co_name
        if cache is None:  # within shared_disassembly, originals are normalized once
            cache = shared_cache("normalized")
        self.cache = {} if cache is None else cache  # shared by check_tree's comparisons

    def _normalized(self, code, top_name):
        key = (id(code), top_name, self.strict)
        entry = self.cache.get(key)
        if entry is None or entry[0] is not code:
            entry = self.cache[key] = (code, _Normalized(code, top_name, self.strict))
        return entry[1]

    def run(self, nested=True):
        """The first difference, or None; with ``nested=False`` the code objects' own
        instructions only (nested code objects compared by name where they are loaded)."""
        return self._compare(self.expected, self.got, _qualname(self.expected), nested)


    def _compare(self, expected, got, where, recurse=True):
        if expected.co_name != got.co_name:
            return "in %s: expected code named %r, got %r" % (where, expected.co_name,
                                                              got.co_name)
        if _argument_counts(expected) != _argument_counts(got):
            for field in _ARGUMENT_COUNTS:
                want, have = getattr(expected, field), getattr(got, field)
                if want != have:
                    return "in %s: expected %s=%d, got %d" % (where, field, want, have)
        # (the usual case first: the same flags, bytes, names and constants; the flags and
        # docstrings asked about below then agree, a docstring being a string constant read
        # by the flags; a 3.14+ docstring flag takes the long way, constant 0 being read
        # whatever it is)
        shortcut = expected.co_flags == got.co_flags and \
            not expected.co_flags & _CO_HAS_DOCSTRING
        identical = shortcut and _identical(expected, got)
        if not identical:
            want, have = expected.co_flags & _FLAG_MASK, got.co_flags & _FLAG_MASK
            if want != have:
                return "in %s: expected flags %s, got %s" % (where, _flag_text(want),
                                                             _flag_text(have))
            want, have = _docstring(expected), _docstring(got)
            if want != have:
                return "in %s: expected docstring %r, got %r" % (where, _short(want),
                                                                 _short(have))
            identical = not shortcut and _identical(expected, got)
        if identical:
            # the same bytes, names and constants: nothing to normalize (most of the time,
            # decompiled output is laid out so that the compiler makes the very same bytes)
            if recurse:
                for a, b in zip(expected.co_consts, got.co_consts):
                    if isinstance(a, _CodeType):
                        nested = self._compare(a, b, _qualname(a) if hasattr(a, "co_qualname")
                                               else "%s.%s" % (where, a.co_name))
                        if nested is not None:
                            return nested
            return None
        moved = _constants_moved(expected, got)
        if moved is not None:
            # the same instructions but for where in co_consts some constants sit: what
            # normalizing both would find, without normalizing (see _constants_moved)
            if recurse:
                for a, b in moved:
                    nested = self._compare(a, b, _qualname(a) if hasattr(a, "co_qualname")
                                           else "%s.%s" % (where, a.co_name))
                    if nested is not None:
                        return nested
            return None

        prefix = "in %s" % where
        left = self._normalized(expected, self.top_name)
        right = self._normalized(got, self.got_top_name)
        for number in range(max(len(left.keys), len(right.keys))):
            lkey = left.keys[number] if number < len(left.keys) else None
            rkey = right.keys[number] if number < len(right.keys) else None
            if lkey != rkey:
                lins = left.instructions[number] if lkey is not None else None
                rins = right.instructions[number] if rkey is not None else None
                self.reach = _reach(left.instructions, number, lkey, rkey)
                if number < len(left.instructions):
                    self.at = left.instructions[number].offset
                return "%s at instruction #%d: expected %s, got %s" % (
                    prefix, number, _describe(lins, lkey, expected), _describe(rins, rkey, got))
            ins = left.instructions[number]
            if recurse and isinstance(ins.argval, _CodeType):
                nested = self._compare(ins.argval, right.instructions[number].argval,
                                       "%s.%s" % (where, ins.argval.co_name)
                                       if not hasattr(ins.argval, "co_qualname")
                                       else ins.argval.co_qualname)
                if nested is not None:
                    return nested

        for field in ("co_varnames", "co_cellvars", "co_freevars"):
            want, have = getattr(expected, field), getattr(got, field)
            if want != have:
                return "%s: expected %s %r, got %r" % (prefix, field, want, have)
        if left.exception_ranges != right.exception_ranges:
            return "%s: exception table differs: expected %s, got %s" % (
                prefix, _ranges_text(left.exception_ranges), _ranges_text(right.exception_ranges))
        return None


_RETURNS = frozenset(["RETURN_VALUE", "RETURN_CONST"])


def _reach(instructions, number, lkey, rkey):
    """Difference.reach for a mismatch at ``number`` (keys ``lkey``/``rkey``, None past an
    end): the furthest of it and the jump targets either key names, as an offset of the
    original (None when that lies past the original's last instruction, or when a return
    stands against another instruction: the compiler copies a small exit block into the jumps
    to it, or not, by what jumps there from anywhere, so code after the mismatch may decide
    it)."""
    names = set(key[0] for key in (lkey, rkey) if key is not None)
    if len(names) > 1 and names & _RETURNS:
        return None
    furthest = number
    for key in (lkey, rkey):
        if key is not None and len(key) == 3 and key[1] == "->":
            furthest = max(furthest, key[2])
    if furthest >= len(instructions):
        return None
    return instructions[furthest].offset


# What _Normalized._key decides from the next instruction (a class body's recorded first line,
# its __qualname__, a pre-3.11 function's qualified name) or from the opname itself
_KEY_CONTEXT = frozenset(["STORE_NAME", "MAKE_FUNCTION"])
_KEY_SPECIAL = frozenset(["BUILD_TUPLE"]) | frozenset(_BORROW)
_SUPERINSTRUCTIONS_HERE = any(name in dis.opmap for name in _SUPERINSTRUCTIONS)

# (the argument counts this version's code objects have, compared in one call)
_ARGUMENT_COUNTS = tuple(field for field in ("co_argcount", "co_posonlyargcount",
                                             "co_kwonlyargcount") if hasattr(_CodeType, field))
_argument_counts = operator.attrgetter(*_ARGUMENT_COUNTS)

_SAME_FIELDS = ("co_code", "co_names", "co_varnames", "co_cellvars", "co_freevars",
                "co_exceptiontable")


# (the fields of _SAME_FIELDS this version's code objects have, read in one call)
_same_fields = operator.attrgetter(*[field for field in _SAME_FIELDS
                                     if hasattr(_CodeType, field)])


# (what _same_tree compares of each code object in one call besides its bytes and constants:
# _compare's first tests, and _identical's tables)
_tree_fields = operator.attrgetter("co_name", "co_flags", *(_ARGUMENT_COUNTS + tuple(
    field for field in _SAME_FIELDS[1:] if hasattr(_CodeType, field))))


def _same_tree(expected, got):
    """True when every code object in ``expected`` has, in ``got`` at the same place, the
    same name, argument counts, flags, bytes, names and constants: the path _Comparer takes
    first (its shortcut and _identical, at every level), without building the comparer, so
    that its verdict is then "no difference". False says nothing: compare.

    (_identical's tests, in one pass over the constants that also goes down into nested
    code objects; the bytes first, which differ most often)"""
    if expected.co_code != got.co_code or _tree_fields(expected) != _tree_fields(got) or \
            expected.co_flags & _CO_HAS_DOCSTRING:
        return False
    consts, other = expected.co_consts, got.co_consts
    if len(consts) != len(other):
        return False
    plain = _PLAIN_CONSTANTS
    for a, b in zip(consts, other):
        kind = a.__class__
        if kind is b.__class__ and kind in plain:
            if a != b:
                return False
        elif kind is _CodeType:
            if b.__class__ is not _CodeType or not _same_tree(a, b):  # (names compared there)
                return False
        elif b.__class__ is _CodeType or not _same_constant(a, b):
            return False
    return True


def _identical(expected, got):
    """Whether two code objects have the same instructions, names and constants (nested code
    objects by name only: the caller compares them), so they do the same thing."""
    if _same_fields(expected) != _same_fields(got):
        return False
    if len(expected.co_consts) != len(got.co_consts):
        return False
    plain = _PLAIN_CONSTANTS
    for a, b in zip(expected.co_consts, got.co_consts):
        kind = type(a)
        if kind is type(b) and kind in plain:
            if a != b:  # (their keys are (type, value): the same test, without the keys)
                return False
        elif isinstance(a, _CodeType) or isinstance(b, _CodeType):
            if not (isinstance(a, _CodeType) and isinstance(b, _CodeType)
                    and a.co_name == b.co_name):
                return False
        elif not _same_constant(a, b):
            return False
    return True


def _same_constant(a, b):
    """Whether constants ``a`` and ``b`` (neither a code object) have the same comparison
    key. A tuple of plain constants (3.11+ keeps every call's keyword names so) has the key
    of its items' keys: equal exactly when the tuples are equal item by item with the same
    type at each place, which C-level comparisons find without making either key."""
    if a.__class__ is tuple and b.__class__ is tuple and a == b and \
            list(map(type, a)) == list(map(type, b)) and _PLAIN_CONSTANTS.issuperset(map(type, a)):
        return True
    return _const_key(a) == _const_key(b)


# The fields _constants_moved needs equal besides the instructions (those of _SAME_FIELDS that
# this version's code objects have, co_code aside), read in one call
_table_fields = operator.attrgetter(*[field for field in _SAME_FIELDS[1:]
                                      if hasattr(_CodeType, field)])
_CONST_OPCODES = sorted(op for op in dis.hasconst if op < 256)  # (pseudo-ops never in co_code)
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]


def _constants_moved(expected, got):
    """The nested code objects to compare, as (expected's, got's) in the order the
    instructions load them, when ``expected`` and ``got`` have the same instructions, names,
    locals and exception table and differ only in where in ``co_consts`` a loaded constant
    sits (its comparison key the same at every load); None otherwise.

    The compiler numbers constants in order of first use, and keeps some whose every load
    it then optimized away (``while True:`` can leave a ``True`` that ``while 1:`` does not),
    so a decompiled output often moves a constant's slot without changing anything the
    normalized comparison reads (about half of the outputs that normalizing found equal to
    an original of other bytes, on the 3.11 stdlib). That comparison would find
    no difference here: each side's opcodes and every non-constant argument are the same
    bytes (so the same jumps, names, locals, flags in arguments and layout to drop or
    rewrite), and every constant load reads a constant with the same key. Nested code
    objects loaded at the same instruction are then what it would compare next, in this
    order. Code units are (opcode, argument) byte pairs on every version (3.11+ CACHE
    entries are code units too), so ``co_code[0::2]`` holds the opcodes, ``[1::2]`` the
    arguments; a constant load behind an EXTENDED_ARG prefix takes the long way."""
    code, other = expected.co_code, got.co_code
    if len(code) != len(other):
        return None
    opcodes = code[0::2]
    if opcodes != other[0::2] or _table_fields(expected) != _table_fields(got):
        return None
    arguments, other_arguments = bytearray(code[1::2]), bytearray(other[1::2])
    consts, other_consts = expected.co_consts, got.co_consts
    plain = _PLAIN_CONSTANTS
    loads = []
    for opcode in _CONST_OPCODES:
        at = opcodes.find(opcode)
        while at >= 0:
            if at and opcodes[at - 1] == _EXTENDED_ARG:
                return None
            a, b = consts[arguments[at]], other_consts[other_arguments[at]]
            kind = type(a)
            if kind is type(b) and kind in plain:
                if a != b:
                    return None
            elif isinstance(a, _CodeType) or isinstance(b, _CodeType):
                if not (isinstance(a, _CodeType) and isinstance(b, _CodeType)
                        and a.co_name == b.co_name):
                    return None
                loads.append((at, a, b))
            elif _const_key(a) != _const_key(b):
                return None
            arguments[at] = other_arguments[at] = 0
            at = opcodes.find(opcode, at + 1)
    if arguments != other_arguments:
        return None
    loads.sort(key=operator.itemgetter(0))
    return [(a, b) for _, a, b in loads]


# Constant types whose comparison keys are (module, name, value): two of one of these types
# have equal keys exactly when they are equal.
_PLAIN_CONSTANTS = frozenset([str, int, bytes, bool, type(None), type(Ellipsis)])


def _flag_text(flags):
    names = [name for bit, name in sorted(_FLAG_NAMES.items()) if flags & bit]
    return "|".join(names) or "(none)"


def _short(value):
    if isinstance(value, str) and len(value) > 40:
        return value[:37] + "..."
    return value


def _ranges_text(ranges):
    if not ranges:
        return "(none)"
    return ", ".join("#%d-#%d -> #%d depth %d%s" % (a, b - 1, t, d, " lasti" if l else "")
                     for a, b, t, d, l in ranges)
