"""statements.ExitBlocks finds its keys reading backwards from each return (each item made
once); these tests hold it to the plain definition: from a start, a forward run of at most
MAX_LENGTH key operations to the first RETURN_VALUE, nothing inside jumped to, no code object
loaded, items compared by type and value (by repr where equal values differ in repr)."""

import os
import sysconfig

from dynalens.decompiler.instructions import PY, Instr, normalize
from dynalens.decompiler.statements import ExitBlocks


def _forward_key(instrs, k):
    """The key of the exit block starting at ``k`` by its definition (or None)."""
    items = []
    for q in range(k, min(k + ExitBlocks.MAX_LENGTH, len(instrs))):
        ins = instrs[q]
        if ins.op not in ExitBlocks._KEY_OPS or (q > k and ins.is_target) or \
                hasattr(ins.argval, "co_code"):
            return None
        items.append((ins.op, type(ins.argval), repr(ins.argval)))
        if ins.op == "RETURN_VALUE":
            if q == k:
                return None
            lines = [i.line for i in instrs[k:q + 1] if i.line is not None]
            if PY >= (3, 12) and lines and not (
                    instrs[q - 1].op == "LOAD_CONST" and instrs[q - 1].argval is None):
                items[-1] += (lines[0],)
            return items
    return None


def _as_repr(key):
    """``key`` with values written as the definition writes them (ExitBlocks keeps plain
    strings, ints, bools, bytes and None as themselves: equal values, equal reprs)."""
    out = []
    for op, kind, value, *rest in key:
        text = value if op == "RETURN_VALUE" or kind not in (str, int, bool, bytes,
                                                            type(None)) else repr(value)
        out.append((op, kind, text) + tuple(rest))
    return out


def _codes(path):
    with open(path, encoding="utf-8") as handle:
        module = compile(handle.read(), path, "exec", dont_inherit=True)
    todo = [module]
    while todo:
        code = todo.pop()
        yield code
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))


def _check(instrs):
    keys = ExitBlocks(instrs).keys
    for k in range(len(instrs)):
        want = _forward_key(instrs, k)
        got = keys.get(k)
        assert (got is None) == (want is None), (k, instrs[k:k + 10])
        if got is not None:
            assert _as_repr(got) == want, k


def test_keys_match_the_forward_definition_on_stdlib_code():
    root = sysconfig.get_paths()["stdlib"]
    checked = 0
    for name in ("argparse.py", "ast.py", "enum.py", "pathlib.py", "shutil.py", "tarfile.py"):
        path = os.path.join(root, name)
        if not os.path.exists(path):
            continue
        for code in _codes(path):
            _check(normalize(code)[0])
            checked += 1
    assert checked > 100


def _instrs(*ops):
    out = []
    for index, (op, argval) in enumerate(ops):
        ins = Instr(op, None, argval, index * 2, None)
        ins.index = index
        out.append(ins)
    return out


def test_equal_floats_of_other_reprs_are_other_blocks():
    # 0.0 == -0.0, but returning one is not returning the other
    instrs = _instrs(("LOAD_CONST", 0.0), ("RETURN_VALUE", None),
                     ("LOAD_CONST", -0.0), ("RETURN_VALUE", None))
    keys = ExitBlocks(instrs).keys
    assert keys[0] != keys[2]
    _check(instrs)


def test_a_jump_target_inside_a_run_ends_it_there():
    instrs = _instrs(("LOAD_FAST", "a"), ("POP_TOP", None), ("LOAD_CONST", None),
                     ("RETURN_VALUE", None))
    instrs[1].is_target = True
    keys = ExitBlocks(instrs).keys
    assert sorted(keys) == [1, 2]
    _check(instrs)



def _copied(keys):
    """The starts of the blocks found more than once, by key."""
    starts = {}
    for k in sorted(keys):
        starts.setdefault(keys[k], []).append(k)
    return [found for found in starts.values() if len(found) > 1]


def test_the_returns_that_may_share_a_block_find_every_copied_one_on_stdlib_code():
    # (ExitBlocks keys only the blocks ending at _sharing_returns: they must group into the
    # same copies as the keys of every block)
    root = sysconfig.get_paths()["stdlib"]
    skipped = 0
    for name in ("argparse.py", "ast.py", "enum.py", "pathlib.py", "shutil.py", "tarfile.py"):
        path = os.path.join(root, name)
        if not os.path.exists(path):
            continue
        for code in _codes(path):
            exits = ExitBlocks(normalize(code)[0])
            returns = [ins.index for ins in exits.instrs if ins.op == "RETURN_VALUE"]
            sharing = exits._sharing_returns(returns)
            assert _copied(exits._keys(sharing)) == _copied(exits._keys(returns)), code.co_name
            skipped += len(returns) - len(sharing)
    assert skipped > 100
