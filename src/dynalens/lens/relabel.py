"""Dynamo's own bytecode, with file name and line numbers pointing into a dumped file.

When the decompiled source of a transformed code object does not verify exact (torch 2.13's
transformed code keeps values on the stack across statements and shuffles them with
SWAP/COPY/POP_TOP, shapes no Python source compiles to), `debug()` must not run the recompiled
source. It can still make breakpoints in the dumped file work: it runs *Dynamo's own bytecode*,
reassembled with `co_filename` set to the dumped file and each instruction's line taken from the
matching instruction of the recompiled source (a sequence alignment of opnames and arguments).
The reassembled code is checked to be byte-for-byte Dynamo's (instructions, constants, names,
exception table); only the line table differs. Lines are approximate where the two disagree.
"""

import difflib
import dis

_SKIP = {"CACHE", "EXTENDED_ARG", "NOP", "RESUME"}
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs)


def _key(opcode, opname, argval):
    if opcode in _JUMPS:
        return (opname,)
    if isinstance(argval, str):
        return (opname, argval)
    if hasattr(argval, "co_code"):
        return (opname, "<code %s>" % argval.co_name)
    try:
        return (opname, repr(argval))
    except Exception:
        return (opname,)


def _source_lines(compiled, offset=0):
    """[(key, line)] of the recompiled source's instructions, nested code excluded."""
    out = []
    for ins in dis.get_instructions(compiled):
        if ins.opname in _SKIP:
            continue
        line = getattr(ins, "positions", None)
        line = line.lineno if line is not None and line.lineno else ins.starts_line
        out.append((_key(ins.opcode, ins.opname, ins.argval),
                    None if line is None else line + offset))
    return out


def listing_lines(code, first_line):
    """[(key, line)] for a listing that puts each instruction of `code` on its own line."""
    out = []
    line = first_line
    for ins in dis.get_instructions(code):
        if ins.opname in _SKIP:
            continue
        out.append((_key(ins.opcode, ins.opname, ins.argval), line))
        line += 1
    return out


def relabel(code, compiled, path, first_body_line, line_offset=0, ref=None):
    """`code` reassembled to report `path` and lines aligned with `compiled`, or None.

    `line_offset` is added to `compiled`'s lines (header lines inserted after compiling).
    Instead of `compiled`, `ref` may give the [(key, line)] pairs to align with directly.
    """
    try:
        from torch._dynamo.bytecode_transformation import transform_code_object
    except Exception:
        return None
    if ref is None:
        ref = _source_lines(compiled, line_offset)
    ref_keys = [k for k, _ in ref]

    def transform(instructions, code_options):
        real = [i for i, inst in enumerate(instructions) if inst.opname not in _SKIP]
        keys = [_key(instructions[i].opcode, instructions[i].opname, instructions[i].argval)
                for i in real]
        lines = [None] * len(real)
        matcher = difflib.SequenceMatcher(None, keys, ref_keys, autojunk=False)
        for a, b, size in matcher.get_matching_blocks():
            for k in range(size):
                lines[a + k] = ref[b + k][1]
        current = first_body_line
        by_index = {}
        for idx, line in zip(real, lines):
            if line is not None:
                current = line
            by_index[idx] = current
        current = first_body_line
        for i, inst in enumerate(instructions):
            current = by_index.get(i, current)
            inst.positions = dis.Positions(current, current, None, None)
            inst.starts_line = current
        code_options["co_filename"] = path
        code_options["co_firstlineno"] = max(1, first_body_line - 1)
        return None

    try:
        # safe=True: torch's instruction cleaning otherwise rewrites some instructions (from
        # 3.12 BINARY_SLICE into BUILD_SLICE + BINARY_SUBSCR, LOAD_ATTR's method form into
        # LOAD_ATTR + PUSH_NULL; torch 2.15), and the bytes would no longer be Dynamo's
        new, _ = transform_code_object(code, transform, safe=True)
    except Exception:
        return None
    same = ("co_code", "co_consts", "co_names", "co_varnames", "co_freevars", "co_cellvars",
            "co_argcount", "co_kwonlyargcount", "co_flags", "co_exceptiontable")
    if any(getattr(new, f, None) != getattr(code, f, None) for f in same):
        return None
    return new
