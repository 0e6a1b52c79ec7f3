"""``co_code`` -> instruction records, the way ``dis.get_instructions`` reads them, faster.

The decompiler and its verification read every code object instruction by instruction, and
``dis`` spends most of that time on what they never look at (source positions, the repr of
every constant, a generator and a named tuple per instruction). :func:`decode` reads the bytes
itself, with the running interpreter's opcode tables, into :class:`RawInstruction` records
whose fields hold what ``dis`` would put there: ``opname``, ``opcode``, ``arg``, ``argval``,
``argrepr`` (computed on first use for constants and 3.13+ jumps), ``offset``, ``starts_line``
(3.13+: whether the line starts here, with ``line_number``), ``is_jump_target`` and
``jump_target``. EXTENDED_ARG instructions are kept, inline CACHE entries skipped, as
``dis`` does.

The per-version facts -- how a jump argument becomes an offset, which opcodes carry caches,
how names, locals and comparison arguments are packed -- live here and only here. Where the
facts are not known (a CPython this module was not checked against, or ``dis`` missing a table
it relies on), :func:`decode` returns ``dis``'s own instructions instead: slower, never wrong.
``tests/test_decode.py`` compares the two field by field on real code.
"""

import dis
import sys
from operator import itemgetter as _itemgetter

try:  # the field reader namedtuple's fields use (C, 3.8+): about twice as fast as a property
    from collections import _tuplegetter
except ImportError:  # (an interpreter without it)
    def _tuplegetter(index, doc):
        return property(_itemgetter(index), doc=doc)

PY = sys.version_info[:2]

# Read as dis reads them on these versions; elsewhere dis itself (see module docstring).
_CHECKED = (3, 8) <= PY <= (3, 13)

# What an argument means, one kind per opcode (the order of dis's tests decides overlaps).
(_PLAIN, _CONST, _NAME, _GLOBAL, _ATTR, _SUPER_ATTR, _JABS, _JREL, _JBACK, _LOCAL, _FREE,
 _LOCAL_PAIR, _COMPARE, _FORMAT_VALUE, _MAKE_FUNCTION, _CONVERT_VALUE, _FUNCTION_ATTR,
 _BINARY_OP, _INTRINSIC_1, _INTRINSIC_2) = range(20)

_UNSET = object()  # argrepr not computed yet


def _cache_sizes():
    """Inline CACHE entries after each opcode (3.11+), as a list indexed by opcode."""
    sizes = [0] * 256
    if PY < (3, 11):
        return sizes
    table = getattr(dis, "_inline_cache_entries", None)
    if isinstance(table, dict):  # 3.13+: by name
        for op in range(256):
            sizes[op] = table.get(dis.opname[op], 0)
    else:
        for op in range(256):
            sizes[op] = table[op]
    return sizes


def _kinds():
    """The argument kind of every opcode, following the order of dis's tests per version."""
    opmap = dis.opmap
    has = lambda name: frozenset(getattr(dis, name, ()))  # noqa: E731
    hasconst, hasname, haslocal, hasfree = (has("hasconst"), has("hasname"), has("haslocal"),
                                            has("hasfree"))
    hasjrel, hasjabs, hascompare = has("hasjrel"), has("hasjabs"), has("hascompare")
    hasjump = has("hasjump") | has("hasexc")
    special = {}
    if PY >= (3, 11):
        special[opmap["LOAD_GLOBAL"]] = _GLOBAL
        special[opmap["BINARY_OP"]] = _BINARY_OP
    if PY >= (3, 12):
        special[opmap["LOAD_ATTR"]] = _ATTR
        special[opmap["LOAD_SUPER_ATTR"]] = _SUPER_ATTR
        special[opmap["CALL_INTRINSIC_1"]] = _INTRINSIC_1
        special[opmap["CALL_INTRINSIC_2"]] = _INTRINSIC_2
    if PY >= (3, 13):
        for name in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"):
            special[opmap[name]] = _LOCAL_PAIR
        special[opmap["CONVERT_VALUE"]] = _CONVERT_VALUE
        special[opmap["SET_FUNCTION_ATTRIBUTE"]] = _FUNCTION_ATTR
    else:
        special[opmap["FORMAT_VALUE"]] = _FORMAT_VALUE
        special[opmap["MAKE_FUNCTION"]] = _MAKE_FUNCTION
    kinds = []
    for op in range(256):
        name = dis.opname[op]
        if op in hasconst:
            kind = _CONST
        elif op in hasname:
            kind = special.get(op, _NAME)
        elif PY >= (3, 13) and op in hasjump:
            kind = _JBACK if "JUMP_BACKWARD" in name else _JREL
            if op in hasjabs:
                kind = _JABS
        elif op in hasjabs:
            kind = _JABS
        elif op in hasjrel:
            kind = _JBACK if PY >= (3, 11) and "JUMP_BACKWARD" in name else _JREL
        elif special.get(op) == _LOCAL_PAIR:
            kind = _LOCAL_PAIR
        elif op in haslocal:
            kind = _LOCAL
        elif PY >= (3, 11) and op in hasfree:
            kind = _LOCAL  # 3.11+: one numbering of locals, cells and free variables
        elif op in hascompare:
            kind = _COMPARE
        elif op in hasfree:
            kind = _FREE
        else:
            kind = special.get(op, _PLAIN)
        kinds.append(kind)
    return kinds


def _has_arg():
    if PY >= (3, 12):
        hasarg = frozenset(dis.hasarg)
        return [op in hasarg for op in range(256)]
    return [op >= dis.HAVE_ARGUMENT for op in range(256)]


try:
    if _CHECKED:
        _OPNAME = list(dis.opname)
        _CACHES = _cache_sizes()
        _KIND = _kinds()
        _HAS_ARG = _has_arg()
        _EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
        _LOAD_CONST = dis.opmap["LOAD_CONST"]
        _CMP_OP = tuple(dis.cmp_op)
        _CMP_SHIFT = 5 if PY >= (3, 13) else 4 if PY >= (3, 12) else 0
        _NB_OPS = [symbol for _, symbol in getattr(dis, "_nb_ops", ())]
        _INTRINSIC_1_DESCS = list(getattr(dis, "_intrinsic_1_descs", ()))
        _INTRINSIC_2_DESCS = list(getattr(dis, "_intrinsic_2_descs", ()))
        _FORMAT_VALUE_CONVERTERS = getattr(dis, "FORMAT_VALUE_CONVERTERS", ())
        _FUNCTION_FLAGS = getattr(dis, "FUNCTION_ATTR_FLAGS", None) or dis.MAKE_FUNCTION_FLAGS
        # (what decode reads of each opcode, in one tuple: one look-up per instruction)
        _BY_OPCODE = list(zip(_HAS_ARG, _CACHES, _KIND))
        _SIZES = [2 + 2 * caches for caches in _CACHES]  # (bytes, by opcode: the next's offset)
except (AttributeError, KeyError, TypeError, IndexError):  # a dis without these tables
    _CHECKED = False

# decode() returns RawInstruction tuples (instructions.py unpacks them), not dis's own
RAW_TUPLES = _CHECKED
# nop_lines() reads the lines of NOPs, and try_nops() gives the lines those have (the lines
# of the slower reading past these versions are not known to match)
NOP_LINES_READ = _CHECKED

# dis keeps an oparg within a C int: EXTENDED_ARG prefixes wrap around past it
_INT_OVERFLOW = 2 ** 31


class RawInstruction(tuple):
    """One instruction as ``dis.Instruction`` describes it (the fields the decompiler reads).

    A tuple, made in one step: decoding makes one per instruction of every code object read.
    """

    __slots__ = ()

    # (read for every instruction by every pass over raw instructions: legacy_blocks.py's
    # and the 3.8-3.10 normalization's above all)
    opname = _tuplegetter(0, "opname")
    opcode = _tuplegetter(1, "opcode")
    arg = _tuplegetter(2, "arg")
    argval = _tuplegetter(3, "argval")
    offset = _tuplegetter(5, "offset")
    starts_line = _tuplegetter(6, "starts_line")
    line_number = _tuplegetter(7, "line_number")
    jump_target = _tuplegetter(8, "jump_target")

    @property
    def is_jump_target(self):
        return self[5] in self[9]

    @property
    def argrepr(self):
        text = self[4]
        if text is not _UNSET:
            return text
        if _KIND[self[1]] == _CONST:
            return repr(self[3])
        # 3.13+ jumps: "to L<n>", labels numbered by dis over the whole code
        for ins in dis.get_instructions(self[10]):
            if ins.offset == self[5]:
                return ins.argrepr
        return ""

    def _replace(self, **fields):
        """A copy with ``fields`` changed (as ``dis.Instruction._replace``)."""
        values = list(self)
        for name, value in fields.items():
            values[_FIELD_AT[name]] = value
        return _new(RawInstruction, values)

    def __repr__(self):
        return "RawInstruction(%s, arg=%r, argval=%r, offset=%d)" % (
            self.opname, self.arg, self.argval, self.offset)


_FIELD_AT = {"opname": 0, "opcode": 1, "arg": 2, "argval": 3, "argrepr": 4, "offset": 5,
             "starts_line": 6, "line_number": 7, "jump_target": 8}
_new = tuple.__new__


def carried_lines(lines):
    """Each position's line, given the lines where they start (None elsewhere: before 3.13
    only the first instruction of a line says it): the last one given carries on."""
    out = []
    line = None
    for given in lines:
        if given is not None:
            line = given
        out.append(line)
    return out


def _line_starts(code):
    """``dict(dis.findlinestarts(code))``, without the generator: the same loop over
    ``co_lines()`` as that version's ``dis`` (3.13's compares line objects by identity, as
    ``dis`` does there); 3.8/3.9 (no ``co_lines``) ask ``dis``."""
    if PY < (3, 10):
        return dict(dis.findlinestarts(code))
    starts = {}
    if PY >= (3, 13):
        last = False  # None is a line number there
        for start, _, line in code.co_lines():
            if line is not last:
                last = line
                starts[start] = line
        return starts
    last = None
    for start, _, line in code.co_lines():
        if line is not None and line != last:
            last = line
            starts[start] = line
    return starts


_NOP = dis.opmap.get("NOP")
_NOP_BYTE = bytes([_NOP]) if _NOP is not None else None


def holds_nop(code):
    """Whether ``code`` has a NOP instruction: its opcode at the start of a code unit (every
    other byte of ``co_code``; an inline cache's units hold CACHE, 0). Most code has none,
    and then the lines of its NOPs need no reading (nop_lines.py). (The byte is found where
    it is, most often nowhere, else first at an opcode's place or only in a few arguments:
    a copy of every other byte to search cost more.)"""
    if _NOP_BYTE is None:
        return False
    data = code.co_code
    at = data.find(_NOP_BYTE)
    while at >= 0:
        if not at & 1:
            return True
        at = data.find(_NOP_BYTE, at + 1)
    return False


def try_nop_lines(code):
    """3.11+: the lines of the NOPs that come right before the first range of a handler in
    ``code``'s exception table: what a ``try:`` on a line of its own leaves (the NOP carries
    its line, the body's protected range begins after it; a ``break`` or ``continue`` out of
    a ``with`` or ``try`` body may come right before a range of an enclosing handler, not its
    first); empty before 3.11 and without a table. Lines as :func:`nop_lines` gives its NOPs
    theirs.

    Why: nearly every line on which a NOP stands alone is such a ``try:`` line (1110 of
    1145 on a 300-file 3.11 sample), and nop_lines.debug_blocks reads every statement's
    lines when one is left; none of these lines can start an ``if __debug__:``."""
    return try_nops(code)[0]


def try_nops(code):
    """(:func:`try_nop_lines`, whether those are the lines of every NOP of ``code``, each NOP
    on a line of its own among them) - when so, every line where :func:`nop_lines` finds a NOP
    is a ``try:`` line with one NOP, and nop_lines.debug_blocks need not read them. False
    where :func:`nop_lines` gives no reading (its lines are not known to match these)."""
    if PY < (3, 11) or not code.co_exceptiontable or _NOP is None:
        return (), False
    data, nop = code.co_code, _NOP
    at = set()
    seen = set()  # (the handlers of the rows before: a later range of one is no try body's)
    for start, _, target, _, _ in exception_table(code):
        # (an even offset holds an opcode or a cache unit's 0: the byte is the NOP's opcode)
        if target not in seen and start >= 2 and data[start - 2] == nop:
            at.add(start - 2)
        seen.add(target)
    if not at:
        return (), False
    found = set()
    carry = PY < (3, 13)
    line = None
    # the ranges of co_lines() come in order, each one starting where the one before ended:
    # the offsets, in order, are met in one pass that stops at the last one's range (rather
    # than every offset tested against every range of the code: a third of what
    # nop_lines.debug_blocks cost)
    offsets = sorted(at)
    last = len(offsets)
    offsets.append(len(data))  # (past every range: ends the inner loop at the last offset)
    k = 0
    offset = offsets[0]
    for start, end, given in code.co_lines():
        if given is not None or not carry:
            line = given
        while offset < end:  # (the offsets in this range, or in none before it)
            if start <= offset and line is not None:
                found.add(line)
            k += 1
            offset = offsets[k]
        if k == last:
            break
    # (each offset lies in one range: as many lines as offsets is one line each, each its
    # own; an opcode's byte is at an even offset, a cache unit's there is 0, never a NOP)
    every = NOP_LINES_READ and len(found) == len(at) == data[::2].count(_NOP_BYTE)
    return found, every


def nop_lines(code):
    """(the line of each NOP, the set of lines of every other instruction) of ``code``, as its
    instructions from :func:`decode` with their carried lines would give them, read from
    ``co_lines()`` and the opcode bytes alone; None where that reading is not known to match
    (3.8/3.9 keep no NOPs with lines; versions past :data:`_CHECKED`).

    Why: nop_lines.py asks this of every function it looks at, and decoding every instruction
    only to find the NOPs was a fifth of what that pass cost."""
    if not _CHECKED or PY < (3, 10):
        return None
    data, sizes, nop = code.co_code, _SIZES, _NOP
    nops, other = [], set()
    add = other.add
    carry = PY < (3, 13)  # before 3.13 an instruction without a line has the one before's
    line = None
    offset = 0  # the next instruction's (a range may end inside an instruction's caches)
    for start, end, given in code.co_lines():
        if given is not None or not carry:
            line = given
        if offset < start:
            offset = start
        if line is None:  # (nothing to note: only the instructions passed over)
            while offset < end:
                offset += sizes[data[offset]]
            continue
        while offset < end:
            op = data[offset]
            if op == nop:
                nops.append(line)
            else:
                add(line)
            offset += sizes[op]
    return nops, other


def unit_lines(code):
    """The line of the instruction at each code unit of ``code`` (index: offset // 2) as
    :func:`decode`'s records with their carried lines give it (the last line that started at
    or before it), read from ``co_lines()`` alone; None where that reading is not known to
    match (3.8/3.9 have no ``co_lines``; from 3.13 every record has its own line).

    Why: the walker stamps each value with its instruction's line, and decoding the whole code
    object a second time only for the lines cost as much as a tenth of a decompilation."""
    if not _CHECKED or not (3, 10) <= PY < (3, 13):
        return None
    lines = [None] * (len(code.co_code) // 2)
    line = None
    for start, end, given in code.co_lines():
        if given is not None:
            line = given
        lines[start // 2:end // 2] = [line] * ((end - start) // 2)
    return lines


def decode(code):
    """The instructions of ``code``: like ``list(dis.get_instructions(code))``."""
    if not _CHECKED:
        return list(dis.get_instructions(code))
    data = code.co_code
    consts, names = code.co_consts, code.co_names
    # the line starts of _line_starts: from 3.10 on read from the ranges of co_lines() as the
    # instructions reach them (as instructions._normalize_code does), before from dis's dict
    pull_lines = PY >= (3, 10)
    if pull_lines:
        ranges = iter(code.co_lines())
        range_end = 0  # (the end of the range last read)
        last_line = False if PY >= (3, 13) else None  # (the last start's line)
    else:
        linestarts = _line_starts(code)
    if PY >= (3, 11):
        local_name = code._varname_from_oparg
        cells = None
    else:
        local_name = code.co_varnames.__getitem__
        cells = code.co_cellvars + code.co_freevars
    by_opcode, opnames = _BY_OPCODE, _OPNAME
    extended = _EXTENDED_ARG
    # (the version tests below, made once per code object rather than per instruction)
    only_load_const = PY == (3, 11)  # 3.11's dis resolves LOAD_CONST only
    jump_after_caches, jump_in_units = PY >= (3, 12), PY >= (3, 10)
    plain, local, name_kind, const_kind = _PLAIN, _LOCAL, _NAME, _CONST
    new, raw = _new, RawInstruction
    out = []
    append = out.append
    targets = set()
    extended_arg = 0
    line = None
    carry_lines = PY >= (3, 13)
    offset = 0
    end = len(data)
    while offset < end:
        op = data[offset]
        takes_arg, caches, kind = by_opcode[op]
        if takes_arg:
            arg = data[offset + 1] | extended_arg
            if op == extended:
                extended_arg = arg << 8
                if extended_arg >= _INT_OVERFLOW:
                    extended_arg -= 2 * _INT_OVERFLOW
            else:
                extended_arg = 0
        else:
            arg = None
            extended_arg = 0
        if not pull_lines:
            starts = linestarts.get(offset)
        elif offset < range_end:
            starts = False if carry_lines else None
        else:
            starts = False if carry_lines else None
            for range_start, range_end, range_line in ranges:
                # (a start at an offset no instruction is at, inside caches, is none of
                # theirs: as a look-up of _line_starts at instruction offsets)
                if carry_lines:
                    if range_line is not last_line:  # (3.13's _line_starts: None is a line)
                        last_line = range_line
                        if range_start == offset:
                            starts = True
                            line = range_line
                elif range_line is not None and range_line != last_line:
                    last_line = range_line
                    if range_start == offset:
                        starts = range_line
                if range_end > offset:
                    break
            else:
                range_end = end  # (no range left)
        argval = arg
        argrepr = ""
        target = None
        if arg is not None:
            if kind == plain:
                pass
            elif kind == local:
                argval = argrepr = local_name(arg)
            elif kind == name_kind:
                argval = argrepr = names[arg]
            elif kind == const_kind:
                if only_load_const and op != _LOAD_CONST:
                    argval = dis.UNKNOWN
                    argrepr = ""
                else:
                    argval = consts[arg]
                    argrepr = _UNSET
            elif kind == _JREL or kind == _JBACK:
                if jump_after_caches:  # relative to the end of the instruction's caches
                    target = offset + 2 + (arg if kind == _JREL else -arg) * 2 + caches * 2
                elif jump_in_units:
                    target = offset + 2 + (arg if kind == _JREL else -arg) * 2
                else:
                    target = offset + 2 + arg
                argval = target
                argrepr = _UNSET if carry_lines else "to " + repr(target)
            elif kind == _JABS:
                target = argval = arg * 2 if PY >= (3, 10) else arg
                # 3.8/3.9's dis leaves an absolute jump's argument undescribed
                argrepr = _UNSET if carry_lines else "to " + repr(target) if PY >= (3, 10) else ""
            elif kind == _GLOBAL or kind == _ATTR or kind == _SUPER_ATTR:
                argval = argrepr = names[arg >> (2 if kind == _SUPER_ATTR else 1)]
                if arg & 1:
                    if carry_lines:
                        argrepr += " + NULL" if kind == _GLOBAL else " + NULL|self"
                    else:
                        argrepr = ("NULL + " if kind == _GLOBAL else "NULL|self + ") + argrepr
            elif kind == _FREE:
                argval = argrepr = cells[arg]
            elif kind == _COMPARE:
                argval = argrepr = _CMP_OP[arg >> _CMP_SHIFT]
                if carry_lines and arg & 16:
                    argrepr = "bool(%s)" % argrepr
            elif kind == _BINARY_OP:
                argrepr = _NB_OPS[arg]
            elif kind == _LOCAL_PAIR:
                first, second = local_name(arg >> 4), local_name(arg & 15)
                argval = (first, second)
                argrepr = first + ", " + second
            elif kind == _FORMAT_VALUE:
                converter, argrepr = _FORMAT_VALUE_CONVERTERS[arg & 0x3]
                argval = (converter, bool(arg & 0x4))
                if argval[1]:
                    argrepr = argrepr + ", with format" if argrepr else "with format"
            elif kind == _MAKE_FUNCTION or kind == _FUNCTION_ATTR:
                argrepr = ", ".join(s for i, s in enumerate(_FUNCTION_FLAGS) if arg & (1 << i))
            elif kind == _CONVERT_VALUE:
                argval = (None, str, repr, ascii)[arg]
                argrepr = ("", "str", "repr", "ascii")[arg]
            elif kind == _INTRINSIC_1:
                argrepr = _INTRINSIC_1_DESCS[arg]
            elif kind == _INTRINSIC_2:
                argrepr = _INTRINSIC_2_DESCS[arg]
        append(new(raw, (opnames[op], op, arg, argval, argrepr, offset, starts,
                         line if carry_lines else None, target, targets, code)))
        if target is not None:
            targets.add(target)
        offset += 2 + 2 * caches
    return out


# -- for instructions._normalize_code, which reads co_code with these same tables (3.11-3.13)

(PLAIN, CONST, NAME, JABS, JREL, JBACK, LOCAL, GLOBAL, ATTR) = (
    _PLAIN, _CONST, _NAME, _JABS, _JREL, _JBACK, _LOCAL, _GLOBAL, _ATTR)
INT_OVERFLOW = _INT_OVERFLOW
if _CHECKED:
    KIND, CACHES, HAS_ARG, OPNAME = _KIND, _CACHES, _HAS_ARG, _OPNAME
    EXTENDED_ARG, LOAD_CONST, NB_OPS = _EXTENDED_ARG, _LOAD_CONST, _NB_OPS


def other_argval(kind, arg, names, local_name):
    """``argval`` as :func:`decode` resolves it for the argument kinds other than plain,
    local, name, constant and jump (3.11+)."""
    if kind == _GLOBAL or kind == _ATTR or kind == _SUPER_ATTR:
        return names[arg >> (2 if kind == _SUPER_ATTR else 1)]
    if kind == _COMPARE:
        return _CMP_OP[arg >> _CMP_SHIFT]
    if kind == _LOCAL_PAIR:
        return (local_name(arg >> 4), local_name(arg & 15))
    if kind == _FORMAT_VALUE:
        return (_FORMAT_VALUE_CONVERTERS[arg & 0x3][0], bool(arg & 0x4))
    if kind == _CONVERT_VALUE:
        return (None, str, repr, ascii)[arg]
    if kind == _FREE:
        raise ValueError("no free-variable argument kind from 3.11 on")
    return arg  # _BINARY_OP, _MAKE_FUNCTION, _FUNCTION_ATTR, _INTRINSIC_1/2: the number


def record(code, opname, op, arg, argval, kind, offset, starts, line_number, target):
    """The :class:`RawInstruction` :func:`decode` makes, from its resolved parts (3.11+;
    ``argrepr`` given where instructions.py reads it, operators and intrinsics, else made
    on demand; no jump-target set: instructions.py reads it from the normalized code)."""
    argrepr = _UNSET
    if arg is None:
        argrepr = ""
    elif kind == _BINARY_OP:
        argrepr = _NB_OPS[arg]
    elif kind == _INTRINSIC_1:
        argrepr = _INTRINSIC_1_DESCS[arg]
    elif kind == _INTRINSIC_2:
        argrepr = _INTRINSIC_2_DESCS[arg]
    return _new(RawInstruction, (opname, op, arg, argval, argrepr, offset, starts, line_number,
                                 target, frozenset(), code))


def exception_table(code):
    """The rows of ``code``'s exception table as (start, end, target, depth, lasti), byte
    offsets as in ``dis.Bytecode(code).exception_entries``; none before 3.11.

    The table is a run of 6-bit varints (CPython's Objects/exception_handling_notes.txt), four
    to a row: start, length, target, depth and lasti; each is read in one loop (the table of
    every code object with a ``try`` or ``with`` is read for every decompilation)."""
    table = getattr(code, "co_exceptiontable", b"") or b""
    values = []
    append = values.append
    i = 0
    n = len(table)
    while i < n:
        b = table[i]
        i += 1
        value = b & 63
        while b & 64:
            b = table[i]
            i += 1
            value = (value << 6) | (b & 63)
        append(value)
    rows = []
    for k in range(0, len(values) - 3, 4):
        start, length, target, depth_lasti = values[k:k + 4]
        rows.append((start * 2, (start + length) * 2, target * 2, depth_lasti >> 1,
                     bool(depth_lasti & 1)))
    return rows
