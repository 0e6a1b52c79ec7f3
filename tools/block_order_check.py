"""Check block_order.py on every code object of the stdlib: the reordered list is the same program.

Why: the reordering moves 3.12+ cold handlers back in front of their statement's join and adds
or drops unconditional jumps; a mistake there would make the walker read another program than
the one compiled, and verification would only say "not exact". This checks the reordering
itself, instruction by instruction: every instruction of the compiled listing that is not an
unconditional jump is in the reordered one exactly once (``origin``), and passes control to
the same places (the next instruction and its jump target, both seen through unconditional
jumps, and its exception handler with the same depth and lasti); the reordered listing adds
nothing but unconditional jumps, and each handler of warm code lies after the code it protects.

    PYTHONPATH=src python3.12 tools/block_order_check.py [--sample N] [-v]

Prints the code objects checked, how many had handlers moved, and each failure; exit 1 on one.
On an interpreter whose compiler keeps handlers where they are written (before 3.12) nothing
moves and nothing is checked.
"""

import argparse
import os
import sys
import sysconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def through_jumps(instrs, k):
    """The first index control reaches from index ``k`` that is not an unconditional jump
    (so added or dropped jumps are transparent); len(instrs) past the end."""
    seen = set()
    while k < len(instrs) and instrs[k].op == "JUMP" and k not in seen:
        seen.add(k)
        k = instrs[k].target
    return k


def _handler_of(entries, k):
    for e in entries:
        if e.start <= k < e.end:
            return e
    return None


def successors(instrs, entries, k, name, no_fallthrough):
    """Where instruction ``k`` can pass control, each place named by ``name``: the next
    instruction, its jump target, its handler (with the depth and lasti of the unwinding)."""
    ins = instrs[k]
    found = set()
    if ins.op not in no_fallthrough:
        found.add(("next", name(through_jumps(instrs, k + 1))))
    if ins.target is not None:
        found.add(("jump", name(through_jumps(instrs, ins.target))))
    entry = _handler_of(entries, k)
    if entry is not None:
        found.add(("handler", name(entry.target), entry.depth, entry.lasti))
    return found


def differences(instrs, entries, new, new_entries, origin):
    """[str]: how the reordered listing (``new``, ``new_entries``; ``origin[k]``: the old index
    of new instruction ``k``, None for an added jump) is not the program of ``instrs``."""
    from dynalens.decompiler.block_order import _NO_FALLTHROUGH, warm_code
    found = []
    n = len(instrs)
    if len(origin) != len(new):
        return ["origin has %d items for %d instructions" % (len(origin), len(new))]
    kept = [k for k in origin if k is not None]
    if len(set(kept)) != len(kept):
        found.append("an instruction is in the new listing twice")
    for k in range(n):
        if k not in set(kept) and instrs[k].op != "JUMP":
            found.append("instruction %d (%s) is gone" % (k, instrs[k].op))
    old_name = lambda k: k if k < n else "end"
    new_name = lambda k: origin[k] if k < len(new) else "end"
    if old_name(through_jumps(instrs, 0)) != new_name(through_jumps(new, 0)):
        found.append("another first instruction")
    for position, k in enumerate(origin):
        copy = new[position]
        if copy.index != position:
            found.append("instruction %d numbered %d" % (position, copy.index))
        if copy.target is not None and not 0 <= copy.target <= len(new):
            found.append("instruction %d jumps outside the code" % position)
        if copy.is_target != any(other.target == position for other in new):
            found.append("instruction %d: is_target is wrong" % position)
        if k is None:
            if copy.op != "JUMP":
                found.append("added instruction %d is a %s" % (position, copy.op))
            continue
        ins = instrs[k]
        if (ins.op, ins.argval, ins.offset, ins.line) != (copy.op, copy.argval, copy.offset,
                                                          copy.line):
            found.append("instruction %d is not a copy of %d" % (position, k))
        if ins.op == "JUMP":
            continue
        before = successors(instrs, entries, k, old_name, _NO_FALLTHROUGH)
        after = successors(new, new_entries, position, new_name, _NO_FALLTHROUGH)
        if before != after:
            found.append("%r: successors %s, now %s" % (ins, sorted(map(str, before)),
                                                        sorted(map(str, after))))
    for e in new_entries:
        if not (0 <= e.start < e.end <= len(new) and e.target < len(new)):
            found.append("entry %r outside the code" % (e,))
    warm = warm_code(new)
    for e in new_entries:
        if warm[e.start] and not warm[e.target] and e.target < e.end:
            found.append("handler %d before the code it protects (%r)" % (e.target, e))
    return found


def check_code(code):
    """(moved, [str]) for one code object (not its nested ones)."""
    from dynalens.decompiler import block_order
    from dynalens.decompiler.instructions import exception_entries, normalize
    instrs, offset_to_index = normalize(code)
    entries = exception_entries(code, offset_to_index)
    snapshot = [(ins.index, ins.op, ins.target) for ins in instrs]
    moves = block_order.plan(instrs, entries)
    if not moves:
        return False, []
    new, new_entries, origin = block_order.reorder(instrs, entries, moves)
    found = differences(instrs, entries, new, new_entries, origin)
    if [(ins.index, ins.op, ins.target) for ins in instrs] != snapshot:
        found.append("the input listing was changed")
    return True, found


def code_objects(top):
    todo = [top]
    while todo:
        code = todo.pop()
        yield code
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))


def stdlib_files(sample=None):
    root = sysconfig.get_paths()["stdlib"]
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "test", "tests",
                                                       "__pycache__"))
        found.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(".py"))
    if sample and sample < len(found):
        step = len(found) / float(sample)
        found = [found[int(k * step)] for k in range(sample)]
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, help="an evenly spread sample of N files")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.join(ROOT, "src"))
    checked = moved = failed = 0
    for path in stdlib_files(args.sample):
        try:
            with open(path, encoding="utf-8") as f:
                top = compile(f.read(), path, "exec")
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for code in code_objects(top):
            checked += 1
            was_moved, found = check_code(code)
            moved += was_moved
            if found:
                failed += 1
                print("FAIL %s %s:%d" % (os.path.relpath(path), code.co_name,
                                         code.co_firstlineno))
                for line in found[:5]:
                    print("    " + line)
            elif was_moved and args.verbose:
                print("moved %s %s:%d" % (os.path.relpath(path), code.co_name,
                                          code.co_firstlineno))
    print("block order: %d code objects, %d with handlers moved, %d failed (Python %s)"
          % (checked, moved, failed, sys.version.split()[0]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
