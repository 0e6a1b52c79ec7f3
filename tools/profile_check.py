"""Check decompiler/profile.py against the running CPython's compiler and the decompiler's own
per-version flags, on any CPython 3.8+ (tests/test_profile.py runs it on every native one).

Each fact the profile names for this version is checked by compiling a snippet that shows it
(or, for facts about opcodes, by the opcode table), and every module-level flag that still
stands for a fact must agree with it. Prints one line per check; exit 1 on any disagreement.
"""

import dis
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

from dynalens.decompiler import instructions  # noqa: E402
from dynalens.decompiler.profile import PROFILE  # noqa: E402


def _function(source):
    namespace = {}
    exec(compile(source, "<profile>", "exec"), namespace)
    return namespace["f"].__code__


def _ops(code):
    return [ins.opname for ins in dis.get_instructions(code)]


_NO_FALLTHROUGH = frozenset(["RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE",
                             "JUMP_ABSOLUTE", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP",
                             "JUMP_BACKWARD_NO_INTERRUPT"])


def _unreachable(code):
    """Offsets of instructions no jump or fall-through reaches (exception handlers aside:
    the snippets that use this have none)."""
    raws = list(dis.get_instructions(code))
    index = dict((raw.offset, k) for k, raw in enumerate(raws))
    seen, todo = set(), [0]
    while todo:
        k = todo.pop()
        while k < len(raws) and k not in seen:
            seen.add(k)
            raw = raws[k]
            if raw.opcode in dis.hasjrel or raw.opcode in dis.hasjabs:
                target = getattr(raw, "jump_target", None)
                target = raw.argval if target is None else target
                if target in index:
                    todo.append(index[target])
            if raw.opname in _NO_FALLTHROUGH:
                break
            k += 1
    return [raw.offset for k, raw in enumerate(raws) if k not in seen]


def observed():
    """{fact: what this interpreter's compiler does}, for the facts a snippet can show."""
    seen = {}
    loop = _ops(_function("def f():\n    while c():\n        a()\n"))
    top_only = loop.count("LOAD_GLOBAL") == 2  # c once, a once
    seen["top_tested_while"] = top_only and "JUMP_BACKWARD" not in dis.opmap
    seen["while_tested_at_top_only_again"] = top_only and "JUMP_BACKWARD" in dis.opmap  # 3.11+
    seen["keeps_dead_code"] = bool(_unreachable(_function(
        "def f():\n    for x in y():\n        if x:\n            break\n        else:\n"
        "            continue\n")))
    branches = _ops(_function("def f(x):\n    if x:\n        a()\n    else:\n        b()\n"))
    seen["implicit_return_at_end_only"] = sum(op.startswith("RETURN") for op in branches) == 1
    seen["setup_blocks"] = dis.opmap.get("SETUP_FINALLY", 256) < 256  # (3.11+: pseudo-op)
    none = _ops(_function("def f(x):\n    if x is None:\n        a()\n"))
    seen["none_jumps"] = any("IF_NONE" in op or "IF_NOT_NONE" in op for op in none)
    handler = list(dis.get_instructions(_function(
        "def f():\n    try:\n        a()\n    except E:\n        b()\n    c()\n")))
    ops = [ins.opname for ins in handler]
    if "PUSH_EXC_INFO" in ops:  # 3.11+: is the handler laid out after `c()`, which follows it?
        after = [k for k, ins in enumerate(handler) if ins.argval == "c"][0]
        seen["cold_handlers"] = ops.index("PUSH_EXC_INFO") > after
    comp = _function("def f(y):\n    return [x for x in y]\n")
    seen["inline_comprehensions"] = not any(hasattr(c, "co_code") for c in comp.co_consts)
    seen["return_const"] = "RETURN_CONST" in dis.opmap
    seen["cell_loads_are_load_fast"] = "LOAD_CLOSURE" not in dis.opmap or \
        dis.opmap["LOAD_CLOSURE"] >= 256  # a pseudo-instruction
    seen["match_success_flag"] = sys.version_info >= (3, 10) and \
        "MATCH_CLASS" in dis.opmap and sys.version_info < (3, 11)
    seen["annotate_functions"] = hasattr(type(lambda: None), "__annotate__")
    documented = _function('def f():\n    "doc"\n')
    seen["docstring_flag"] = bool(documented.co_flags & 0x4000000)  # CO_HAS_DOCSTRING
    # the test of an `if` ending a loop body: an inverted test over its own JUMP back
    raws = list(dis.get_instructions(_function(
        "def f(y):\n    for x in y:\n        if x:\n            a()\n")))
    seen["expanded_backward_jumps"] = any(
        "JUMP_IF" in raw.opname and k + 2 < len(raws) and raws[k + 1].opname == "JUMP_BACKWARD"
        and raw.argval == raws[k + 2].offset for k, raw in enumerate(raws))
    # a written `return x` after if/else comes back once per branch, as the structurer sees
    # the code (3.10 copies it too, and its normalization folds the copies back)
    copied, _ = instructions.normalize(_function(
        "def f(x):\n    if x:\n        a()\n    else:\n        b()\n    return x\n"))
    seen["lined_exit_copies"] = [ins.op for ins in copied].count("RETURN_VALUE") == 2
    # `super().m()` in a method: one LOAD_SUPER_ATTR, and a plain call once the module's top
    # scope names `super`
    shapes = []
    for header in ("", "super\n"):
        namespace = {}
        exec(compile(header + "class C:\n    def f(self):\n        super().m()\n",
                     "<profile>", "exec"), namespace)
        shapes.append("LOAD_SUPER_ATTR" in _ops(namespace["C"].f.__code__))
    seen["super_attr_calls"] = shapes == [True, False]
    stores = _ops(_function("def f(t):\n    a, _, _ = t\n"))
    seen["repeated_store_pops"] = "POP_TOP" in stores[stores.index("UNPACK_SEQUENCE"):]
    return seen


def flags():
    """{fact: the module flag that stands for it} where one still exists."""
    return {
        "null_below_callable": instructions.NULL_FIRST,
        "none_jumps": instructions.NONE_JUMPS,
        "cell_loads_are_load_fast": instructions.CLOSURE_IS_LOAD_FAST,
    }


def main():
    failed = 0
    for source, found in (("compiler", observed()), ("flag", flags())):
        for name, value in sorted(found.items()):
            want = getattr(PROFILE, name)
            ok = bool(value) == want
            failed += not ok
            print("%-4s %-8s %-28s profile %-5s %s %s" % (
                "ok" if ok else "FAIL", source, name, want, "observed" if source == "compiler"
                else "flag", bool(value)))
    print("profile %d.%d: %d disagreement(s)" % (PROFILE.version + (failed,)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
