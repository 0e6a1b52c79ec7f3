"""The verifier's fast paths give the verdict the normalized comparison gives.

verify.py decides most comparisons without normalizing either code object: ``_same_tree``
(check_tree: every code object of the tree with its original's bytes, names and constants),
``_identical`` (one code object so) and ``_constants_moved`` (the same instructions, some
constants in other ``co_consts`` slots). Each may only say "no difference" where normalizing
both sides finds none, and must leave every other verdict (the difference's text, ``reach``
and ``at``) to the normalized comparison. Here every comparison is made twice on real stdlib
code, with the fast paths and with them turned off, and the answers must be the same: on
pairs that match (recompiled source, constants moved), and on pairs altered so that they do
not (another constant loaded, another local read, a constant of another type)."""

import ast
import dis
import sys
import sysconfig

import pytest

from dynalens.decompiler import verify as verify_module
from dynalens.decompiler.instructions import shared_disassembly

MODULES = ("argparse.py", "textwrap.py", "fractions.py", "csv.py", "string.py",
           "json/decoder.py", "json/encoder.py")
_CodeType = type(compile("", "", "exec"))
_CONST_OPS = frozenset(op for op in dis.hasconst if op < 256)
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]


def _stdlib_modules():
    root = sysconfig.get_paths()["stdlib"]
    for name in MODULES:
        with open("%s/%s" % (root, name), "rb") as handle:
            yield name, handle.read()


def _functions(module):
    """Every code object nested in ``module``, outermost first."""
    todo = [module]
    while todo:
        code = todo.pop(0)
        nested = [c for c in code.co_consts if isinstance(c, _CodeType)]
        todo.extend(nested)
        if code is not module:
            yield code


def _const_loads(code):
    """Byte offsets of the constant loads (no EXTENDED_ARG prefix) in ``code.co_code``."""
    data = code.co_code
    return [at for at in range(0, len(data), 2)
            if data[at] in _CONST_OPS and not (at and data[at - 2] == _EXTENDED_ARG)]


def _with_constants(code, consts, slot_of):
    """``code`` with ``consts`` and each constant load reading ``slot_of[old slot]``; None
    where a slot would need an EXTENDED_ARG prefix."""
    data = bytearray(code.co_code)
    for at in _const_loads(code):
        slot = slot_of[data[at + 1]]
        if slot > 255:
            return None
        data[at + 1] = slot
    if any(data[at] in _CONST_OPS for at in range(0, len(data), 2)
           if at and data[at - 2] == _EXTENDED_ARG):
        return None
    return code.replace(co_code=bytes(data), co_consts=tuple(consts))


def _moved(code):
    """``code`` with its constants after the first (a docstring stays first) in reverse
    order and an unused ``True`` added, as recompiled source often has them: the same code."""
    consts = code.co_consts
    if len(consts) < 3 or len(consts) > 250:
        return None
    order = [0] + list(range(len(consts) - 1, 0, -1))
    slot_of = dict((old, new) for new, old in enumerate(order))
    return _with_constants(code, [consts[old] for old in order] + [True], slot_of)


def _other_constant_loaded(code):
    """``code`` with its first constant load reading another slot, whose constant differs."""
    keys = [verify_module._const_key(const) for const in code.co_consts]
    for at in _const_loads(code):
        slot = code.co_code[at + 1]
        for other in range(len(keys)):
            if keys[other] != keys[slot] and not isinstance(code.co_consts[other], _CodeType):
                data = bytearray(code.co_code)
                data[at + 1] = other
                return code.replace(co_code=bytes(data))
    return None


def _other_local_read(code):
    """``code`` with its first local load reading another local variable."""
    load_fast = dis.opmap["LOAD_FAST"]
    count = len(code.co_varnames)
    data = bytearray(code.co_code)
    for at in range(0, len(data), 2):
        if data[at] == load_fast and count > 1 and data[at + 1] < count and not (
                at and data[at - 2] == _EXTENDED_ARG):
            data[at + 1] = (data[at + 1] + 1) % count
            return code.replace(co_code=bytes(data))
    return None


def _retyped(code):
    """``code`` with its first bool or int constant an int or float of the same value: equal
    under ``==``, a different constant."""
    consts = list(code.co_consts)
    for slot, const in enumerate(consts):
        if type(const) in (bool, int):
            consts[slot] = int(const) if type(const) is bool else float(const)
            return code.replace(co_consts=tuple(consts))
    return None


def _pairs():
    """(original, other) pairs of code objects: recompiled from unparsed source, and
    altered variants, both exact and not."""
    pairs = []
    for name, source in _stdlib_modules():
        module = compile(source, name, "exec", dont_inherit=True)
        originals = list(_functions(module))
        if hasattr(ast, "unparse"):
            again = compile(ast.unparse(ast.parse(source)), name, "exec", dont_inherit=True)
            by_name = {}
            for code in _functions(again):
                by_name.setdefault(verify_module._qualname(code), code)
            pairs.extend((code, by_name[verify_module._qualname(code)]) for code in originals
                         if verify_module._qualname(code) in by_name)
        for code in originals:
            pairs.append((code, code.replace(co_firstlineno=code.co_firstlineno + 7)))
            moved = _moved(code)
            for variant in (moved, _other_constant_loaded(code), _other_local_read(code),
                            _retyped(code)):
                if variant is not None:
                    pairs.append((code, variant))
            if moved is not None:
                for variant in (_other_constant_loaded(moved), _other_local_read(moved)):
                    if variant is not None:
                        pairs.append((code, variant))
    return pairs


def _verdicts(pairs, strict=False):
    out = []
    for expected, got in pairs:
        with shared_disassembly():
            comparer = verify_module._Comparer(expected, got, strict=strict)
            whole = comparer.run()
            own = verify_module._Comparer(expected, got, strict=strict)
            out.append((whole, comparer.reach, comparer.at, own.run(nested=False), own.reach,
                        own.at))
    return out


def _slow_paths_only(monkeypatch):
    monkeypatch.setattr(verify_module, "_same_tree", lambda expected, got: False)
    monkeypatch.setattr(verify_module, "_identical", lambda expected, got: False)
    monkeypatch.setattr(verify_module, "_constants_moved", lambda expected, got: None)


@pytest.fixture(scope="module")
def pairs():
    return _pairs()


@pytest.mark.parametrize("strict", [False, True])
def test_fast_paths_give_the_normalized_verdict_on_real_code(monkeypatch, pairs, strict):
    taken = {"identical": 0, "moved": 0}
    identical, moved = verify_module._identical, verify_module._constants_moved

    def counted_identical(expected, got):
        same = identical(expected, got)
        taken["identical"] += same
        return same

    def counted_moved(expected, got):
        pairs_loaded = moved(expected, got)
        taken["moved"] += pairs_loaded is not None
        return pairs_loaded

    monkeypatch.setattr(verify_module, "_identical", counted_identical)
    monkeypatch.setattr(verify_module, "_constants_moved", counted_moved)
    fast = _verdicts(pairs, strict)
    _slow_paths_only(monkeypatch)
    slow = _verdicts(pairs, strict)
    # (not vacuous: each fast path decided many comparisons, and many pairs differ)
    assert len(pairs) > 1000
    assert taken["identical"] > 1000 and taken["moved"] > 250
    assert sum(1 for verdict in slow if verdict[0] is not None) > 600
    assert fast == slow


def test_constants_moved_finds_the_moved_constants_and_nothing_else():
    """Beside the verdicts: it recognizes the moved variant, and never an altered one."""
    recognized = 0
    for name, source in _stdlib_modules():
        for code in _functions(compile(source, name, "exec", dont_inherit=True)):
            moved = _moved(code)
            if moved is None:
                continue
            nested = verify_module._constants_moved(code, moved)
            assert nested is not None
            assert [a for a, _ in nested] == [b for _, b in nested]  # nested code kept as is
            recognized += 1
            for altered in (_other_constant_loaded(moved), _other_local_read(moved)):
                if altered is not None:
                    assert verify_module._constants_moved(code, altered) is None
    assert recognized > 150


def test_check_tree_and_verify_give_the_normalized_verdict(monkeypatch):
    """check_tree and verify (strict or not) on decompiled stdlib functions, original and
    altered, say the same with _same_tree and the other fast paths as without them."""
    from dynalens.decompiler.render import decompile_code

    cases = []
    for name, source in list(_stdlib_modules())[:4]:
        for code in _functions(compile(source, name, "exec", dont_inherit=True)):
            if not code.co_flags & 2 or code.co_name.startswith("<"):
                continue  # functions and methods, as the round-trip benchmark decompiles them
            try:
                text = decompile_code(code)
            except Exception:
                continue
            cases.append((code, text))
            for variant in (_moved(code), _other_local_read(code), _retyped(code)):
                if variant is not None:
                    cases.append((variant, text))

    def verdicts():
        out = []
        for code, text in cases:
            with shared_disassembly():
                differences, found = verify_module.check_tree(code, text)
            out.append([(d.code, d.compiled is None, d.line, d.difference, d.reach, d.at)
                        for d in differences])
            for strict in (False, True):
                with shared_disassembly():
                    result = verify_module.verify(code, text, strict=strict)
                compiled = result.compiled
                out.append((result.exact, result.difference, result.how,
                            None if compiled is None else verify_module._qualname(compiled)))
        return out

    fast = verdicts()
    _slow_paths_only(monkeypatch)
    slow = verdicts()
    assert len(cases) > 400
    assert sum(1 for verdict in slow[::3] if not verdict) > 200
    assert sum(1 for verdict in slow[::3] if verdict) > 100
    assert fast == slow


def test_same_constant_says_what_the_comparison_keys_say():
    """_same_constant (the tuple shortcut of _identical and _same_tree) against equal keys, on
    every pair of constants of stdlib code of one type (most equal, the rest not), and on
    tuples that are equal as values but not as constants."""
    constants = []
    for name, source in _stdlib_modules():
        for code in _functions(compile(source, name, "exec", dont_inherit=True)):
            constants.extend(c for c in code.co_consts if not isinstance(c, _CodeType))
    constants += [(1,), (True,), (1.0,), (0.0,), (-0.0,), (float("nan"),), ((1, 2),),
                  ((True, 2),), ("a", 1), ("a", True), (), (None,), (b"x",), ("x",)]
    by_type = {}
    for value in constants:
        by_type.setdefault(type(value), []).append(value)
    tuples = by_type[tuple]
    assert len(tuples) > 100
    compared = 0
    for group in by_type.values():
        for a in group[:300]:
            for b in group[:300]:
                assert verify_module._same_constant(a, b) == (
                    verify_module._const_key(a) == verify_module._const_key(b)), (a, b)
                compared += 1
    assert compared > 10000
