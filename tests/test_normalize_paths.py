"""normalize()'s fast loops (3.11-3.13: _normalize_code, reading co_code itself; 3.8-3.10:
_normalize_legacy_tuples over decode.py's tuples) give the very instructions and offset map of
its general loop, which reads decode.py's instructions through their named fields (as it does
for dis's own, where decode.py falls back to dis)."""

import sys
import sysconfig

import pytest

from dynalens.decompiler import instructions


def _codes():
    root = sysconfig.get_paths()["stdlib"]
    for name in ("argparse.py", "asyncio/tasks.py", "contextlib.py", "difflib.py",
                 "functools.py", "inspect.py", "typing.py", "zipfile.py"):
        try:
            with open("%s/%s" % (root, name), "rb") as handle:
                module = compile(handle.read(), name, "exec", dont_inherit=True)
        except (OSError, SyntaxError):
            continue
        todo = [module]
        while todo:
            code = todo.pop()
            yield code
            todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))


def _facts(normalized):
    instrs, offset_to_index = normalized
    return ([(i.index, i.op, i.arg, repr(i.argval), i.offset, i.line, i.target, i.is_target,
              i.original_target) for i in instrs], sorted(offset_to_index.items()))


@pytest.mark.skipif(not instructions.RAW_TUPLES, reason="decode.py falls back to dis here")
def test_tuple_loops_equal_the_general_loop(monkeypatch):
    codes = list(_codes())
    assert len(codes) > 500
    fast = [_facts(instructions.normalize(code)) for code in codes]
    monkeypatch.setattr(instructions, "RAW_TUPLES", False)  # the general loop, same input
    general = [_facts(instructions.normalize(code)) for code in codes]
    for code, a, b in zip(codes, fast, general):
        assert a == b, code.co_qualname if sys.version_info >= (3, 11) else code.co_name


@pytest.mark.skipif(not (3, 8) <= sys.version_info[:2] <= (3, 10),
                    reason="the block stack of 3.8-3.10 bytecode")
def test_wordcode_block_stacks_equal_the_indexed_walk():
    # block_stacks() walks 3.8-3.10 code by offset (each instruction at twice its index): the
    # same stacks, in the same order, as the walk through the map of offsets, with and without
    # the jumps unthread() sends elsewhere
    from dynalens.decompiler import legacy_blocks
    compared = retargeted = 0
    for code in _codes():
        raws = instructions.raw_instructions(code)
        retargets = [{}]
        if sys.version_info < (3, 10):
            retargets.append(legacy_blocks.unthread(raws))
        for retarget in retargets:
            walked = legacy_blocks.block_stacks(raws, retarget)
            indexed = legacy_blocks._indexed_block_stacks(raws, retarget)
            assert list(walked.items()) == list(indexed.items()), code.co_name
            compared += 1
            retargeted += bool(retarget)
    assert compared > 500
    assert retargeted > 0 or sys.version_info >= (3, 10)
