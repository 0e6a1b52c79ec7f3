"""decode.py reads bytecode the way ``dis.get_instructions`` does, field by field.

The decompiler's fast reader must never disagree with ``dis``: every field the decompiler and
its verification read is compared on real code (stdlib modules, the construct corpus) and on
code with EXTENDED_ARG prefixes, long jumps and awkward constants. Runs under pytest, and as a
script on interpreters without pytest (``python tests/test_decode.py``: exit status 1 on a
difference), so that each CPython 3.8-3.15 can be checked.
"""

import dis
import glob
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)

from dynalens.decompiler.decode import decode, holds_nop, nop_lines, unit_lines  # noqa: E402
from dynalens.decompiler.instructions import (instruction_lines, normalize,  # noqa: E402
                                              shared_disassembly)

_FIELDS = ("opname", "opcode", "arg", "argval", "argrepr", "offset", "starts_line",
           "is_jump_target")
_FIELDS_313 = ("line_number", "jump_target")

STDLIB_MODULES = ("_pydecimal", "argparse", "asyncio/base_events", "typing", "dataclasses",
                  "inspect", "email/_header_value_parser", "enum", "pathlib", "contextlib")


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, (float, complex)) or hasattr(a, "co_code"):
        return a is b or repr(a) == repr(b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def differences(code):
    """Where decode() and dis disagree on ``code`` and the code nested in it."""
    found = []
    expected = list(dis.get_instructions(code))
    got = decode(code)
    where = getattr(code, "co_qualname", code.co_name)
    if len(expected) != len(got):
        found.append("%s: %d instructions from dis, %d from decode"
                     % (where, len(expected), len(got)))
    fields = _FIELDS + (_FIELDS_313 if sys.version_info >= (3, 13) else ())
    for want, have in zip(expected, got):
        for field in fields:
            a, b = getattr(want, field), getattr(have, field)
            if not _same(a, b):
                found.append("%s at offset %d (%s): %s is %r in dis, %r in decode"
                             % (where, want.offset, want.opname, field, a, b))
        if want.opcode in dis.hasjrel or want.opcode in dis.hasjabs:
            if have.jump_target != want.argval and sys.version_info < (3, 13):
                found.append("%s at offset %d: jump_target %r, dis argval %r"
                             % (where, want.offset, have.jump_target, want.argval))
        if len(found) > 20:
            break
    by_unit = unit_lines(code)
    if by_unit is not None:
        carried = [line for _, line in _lines_from_dis(expected)]
        read = [by_unit[ins.offset // 2] for ins in expected]
        if read != carried:
            found.append("%s: unit_lines() gives %r, dis %r" % (where, read, carried))
    has_nop = any(ins.opname == "NOP" for ins in expected)
    if holds_nop(code) != has_nop:
        found.append("%s: holds_nop() gives %r, dis %r" % (where, holds_nop(code), has_nop))
    # the lines normalize() keeps for the walker (3.11/3.12) are those read by code unit
    with shared_disassembly():
        instrs = normalize(code)[0]
        kept = instruction_lines(code, instrs)
    alone = instruction_lines(code, instrs)  # (outside: read by code unit, or from dis)
    if kept != alone:
        found.append("%s: instruction_lines() gives %r after normalize(), %r alone"
                     % (where, kept, alone))
    lines = nop_lines(code)
    if lines is not None and lines != _nop_lines_from_dis(expected):
        found.append("%s: nop_lines() gives %r, dis %r"
                     % (where, lines, _nop_lines_from_dis(expected)))
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            found.extend(differences(const))
    return found


def _lines_from_dis(instructions):
    """(instruction, its line) from dis: its line number (3.13+) or the last line that
    started at or before it."""
    line = None
    for ins in instructions:
        if sys.version_info >= (3, 13):
            line = ins.line_number
        elif ins.starts_line is not None:
            line = ins.starts_line
        yield ins, line


def _nop_lines_from_dis(instructions):
    """(NOP lines, other lines) from dis's instructions."""
    nops, other = [], set()
    for ins, line in _lines_from_dis(instructions):
        if line is None:
            continue
        if ins.opname == "NOP":
            nops.append(line)
        else:
            other.add(line)
    return nops, other


def _compile(source, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile(source, path, "exec", dont_inherit=True)


def _stdlib_paths():
    import sysconfig
    root = sysconfig.get_paths()["stdlib"]
    for name in STDLIB_MODULES:
        path = os.path.join(root, name + ".py")
        if os.path.exists(path):
            yield path


def _corpus_paths():
    return sorted(glob.glob(os.path.join(HERE, "corpus", "*.py")))


def _many_constants_source():
    """EXTENDED_ARG everywhere: more than 256 constants, names and locals, and jumps over more
    than 256 instructions (2 and 3 prefix bytes: 70000 constants)."""
    lines = ["def big(flag):"]
    lines += ["    v%d = %d.5 + g%d" % (k, k, k) for k in range(300)]
    lines += ["    if flag:", "        return v1", "    while flag:"]
    lines += ["        flag = flag - %d" % k for k in range(200)]
    lines += ["    return (%s)" % ", ".join("v%d" % k for k in range(300))]
    lines += ["x = [%s]" % ", ".join("'s%d'" % k for k in range(70000))]
    lines += ["nan = float('nan'); y = (-0.0, 0.0, 1j, b'\\x00', ..., None, frozenset({1}))"]
    return "\n".join(lines) + "\n"


def _check_source(source, path):
    try:
        code = _compile(source, path)
    except SyntaxError:  # a corpus file for a newer Python
        return []
    return differences(code)


def test_decode_matches_dis_on_the_stdlib():
    for path in _stdlib_paths():
        with open(path, "rb") as handle:
            assert _check_source(handle.read(), path) == []


def test_decode_matches_dis_on_the_corpus():
    for path in _corpus_paths():
        with open(path, "rb") as handle:
            assert _check_source(handle.read(), path) == []


def test_decode_matches_dis_with_extended_args():
    assert _check_source(_many_constants_source(), "<big>") == []


def test_argrepr_of_a_constant_is_its_repr():
    code = _compile("x = 'a\\nb'\n", "<c>")
    load = [ins for ins in decode(code) if ins.opname == "LOAD_CONST"][0]
    assert load.argrepr == repr("a\nb")
    assert load._replace(argrepr="z").argrepr == "z"


def main():
    failures = []
    for path in list(_stdlib_paths()) + _corpus_paths():
        with open(path, "rb") as handle:
            failures.extend(_check_source(handle.read(), path))
    failures.extend(_check_source(_many_constants_source(), "<big>"))
    for line in failures[:40]:
        print(line)
    print("decode vs dis on Python %d.%d: %s" % (sys.version_info[0], sys.version_info[1],
                                                 "%d differences" % len(failures)
                                                 if failures else "same"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
