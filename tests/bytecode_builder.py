"""A tiny CPython 3.11 assembler for tests: builds code objects that no compiler emits.

Dynamo rewrites bytecode directly, so the decompiler meets shapes people never write (values
left on the stack across statements, SWAP/COPY games, explicit NULL pushes, duplicated and
shared tails).  These tests need such code objects; writing them by hand is the only way to
get exactly the shapes under test.  Only 3.11's encoding is implemented (inline caches after
the instructions that have them, jump arguments relative in code units).
"""

import dis
import opcode
import sys
import types

SUPPORTED = sys.version_info[:2] == (3, 11)

_JUMPS_FORWARD = {"JUMP_FORWARD", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
                  "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE",
                  "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP", "FOR_ITER"}
_JUMPS_BACKWARD = {"JUMP_BACKWARD", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE"}


class Label(object):
    def __init__(self, name):
        self.name = name


def _size(opname):
    return 1 + opcode._inline_cache_entries[opcode.opmap[opname]]


def assemble(program, argnames=(), consts=(None,), names=(), varnames=(), name="generated",
             exceptions=()):
    """``program``: a list of Label or (opname, arg) where a jump's arg is a Label and
    LOAD_GLOBAL's arg is (name_index, push_null).  ``exceptions``: exception table entries
    (start, end, target, depth, lasti), the first three Labels, ``end`` exclusive.  Returns a
    function-level code object."""
    offsets = {}
    position = 0
    for item in program:
        if isinstance(item, Label):
            offsets[item] = position
        else:
            position += _size(item[0])
    code = bytearray()
    position = 0
    for item in program:
        if isinstance(item, Label):
            continue
        opname, arg = item
        after = position + _size(opname)
        if opname in _JUMPS_FORWARD:
            arg = offsets[arg] - after
        elif opname in _JUMPS_BACKWARD:
            arg = after - offsets[arg]
        elif opname == "LOAD_GLOBAL":
            index, push_null = arg
            arg = (index << 1) | int(push_null)
        arg = arg or 0
        assert 0 <= arg < 256, (opname, arg)
        code += bytes([opcode.opmap[opname], arg])
        code += b"\0\0" * (after - position - 1)
        position = after
    template = compile("def %s(%s): pass" % (name, ", ".join(argnames)), "<generated>", "exec")
    template = [c for c in template.co_consts if isinstance(c, types.CodeType)][0]
    all_varnames = tuple(argnames) + tuple(v for v in varnames if v not in argnames)
    return template.replace(
        co_code=bytes(code), co_consts=tuple(consts), co_names=tuple(names),
        co_varnames=all_varnames, co_nlocals=len(all_varnames), co_stacksize=16,
        co_linetable=b"", co_exceptiontable=_exception_table(exceptions, offsets))


def _exception_table(entries, offsets):
    """3.11's encoding (Objects/exception_handling_notes.txt): per entry start, length,
    target (code units) and depth << 1 | lasti, each in 6-bit groups, most significant first,
    0x40 on all groups but the last, 0x80 on an entry's first byte."""
    table = bytearray()
    for start, end, target, depth, lasti in entries:
        values = [offsets[start], offsets[end] - offsets[start], offsets[target],
                  depth << 1 | int(lasti)]
        for position, value in enumerate(values):
            groups = [value & 0x3F]
            value >>= 6
            while value:
                groups.append(value & 0x3F | 0x40)
                value >>= 6
            groups.reverse()
            if position == 0:
                groups[0] |= 0x80
            table += bytes(groups)
    return bytes(table)


def disassembly(code):
    return "\n".join("%4d %s %s" % (i.offset, i.opname, i.argrepr) for i in dis.get_instructions(code))
