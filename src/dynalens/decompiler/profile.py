"""One compiler profile per CPython version: the template facts structuring relies on, named.

Why: per-version knowledge was spread over about 40 ``sys.version_info`` / ``PY`` checks in
the structuring modules (issue 12). Each check stands for a fact about what CPython's compiler
emits (``Python/codegen.c``, ``Python/compile.c``, ``Python/flowgraph.c``): "handlers are laid
out after everything else", "``while`` is tested at the top only". Named in one place, a new
CPython version is a new table row, and structuring code asks ``PROFILE.cold_handlers``
instead of comparing version numbers (tests/test_architecture.py fails on a version
comparison in any decompiler module but the few below structuring). Opcode renames and splits
are not template facts: they stay in ``decode.py`` and ``instructions.py``, below everything,
and so do the few flags about opcodes that expressions.py reads (``instructions.NULL_FIRST``).

``tools/profile_check.py`` checks each fact a snippet can show against the running compiler
(``tests/test_profile.py`` runs it on every native interpreter).

    from .profile import PROFILE            # the running interpreter's
    profile_for((3, 12)).cold_handlers      # any supported version's
"""

import sys

# name -> (first version where it holds, first version where it no longer holds or None,
#          what it means and who reads it)
FACTS = {
    "top_tested_while": ((3, 8), (3, 10), """\
`while c:` is tested at the top only, its back edge is an unconditional jump (3.10+ copy the
test to the bottom). branches.py, handlers_legacy.py."""),
    "keeps_dead_code": ((3, 8), (3, 10), """\
Unreachable code after return/raise/break is kept (3.10+ removes it). render.py (the dead
`return None` at the end of a function, legacy_structure.py), branches.py and
handlers_legacy.py (dead jumps and exits left after a return, raise, continue or break:
legacy_structure.dead_after, else_jump_after)."""),
    "implicit_return_at_end_only": ((3, 8), (3, 10), """\
The compiler's implicit `return None` is the code's last two instructions and is never copied
(3.10+ copy it into the branches that reach it), so a `return None` anywhere else was written
(`return None if c else x` at the end of an else). handlers_legacy.is_implicit_return."""),
    "setup_blocks": ((3, 8), (3, 11), """\
Handlers are found through SETUP_* instructions and the block stack (3.11+: the exception
table). instructions.exception_entries, legacy_blocks.py, handlers_legacy.py, statements.py
(ExitBlocks folds lone RETURN_VALUE copies back for handlers_legacy's finally copies; with
the table, a try body that protects nothing leaves its handler without an entry:
empty_tries.py)."""),
    "inlined_exit_copies_310": ((3, 10), (3, 11), """\
3.10 copies a small exit block into the jumps to it and leaves the original in place
(instructions._LegacyState.exit_copies, legacy_blocks.inlined_exits), unless nothing falls
into it: then the copies fold back into jumps to the last one, which may end a branch of an
else (branches._join_copied_into_else)."""),
    "jumps_to_return_inlined": ((3, 8), (3, 11), """\
An unconditional jump to a small block that returns is replaced by a copy of that block
(3.8/3.9's peephole pass: a jump to RETURN_VALUE becomes the return; 3.10: blocks of up to
four instructions), so code that jumped past a cleanup falls into the original instead.
branches.py (chained comparisons). 3.11 keeps the jump; 3.12+ copy exits again in
flowgraph.c, in their own chain template (not read yet)."""),
    "match_success_flag": ((3, 10), (3, 11), """\
MATCH_CLASS / MATCH_KEYS push a success flag beside the values tuple (3.11+: None on
failure). patterns.py (3.8/3.9 have no `match`)."""),
    "none_jumps": ((3, 11), None, """\
`x is None` tests jump with POP_JUMP_IF_[NOT_]NONE. instructions.NONE_JUMPS: branches.py."""),
    "null_below_callable": ((3, 8), (3, 13), """\
CALL finds the NULL / self slot below the callable (3.13+: above it).
instructions.NULL_FIRST: expressions.py."""),
    "cold_handlers": ((3, 12), None, """\
Blocks only exceptions reach (handlers, with exits, the throw path of await) are laid out
after all other code (flowgraph.c push_cold_blocks_to_end). cold_blocks.py,
generated_layout.py, statements.py (_find_loops, _loop_encloses), exception_groups.py;
block_order.py puts them back at the end of their statements (render.CodeWalker reads that
order first where every handler goes back)."""),
    "inline_comprehensions": ((3, 12), None, """\
List/set/dict comprehensions are inlined into their function (PEP 709), with a cleanup
handler that restores the names. inline_comprehensions.py, cold_blocks.py."""),
    "expanded_backward_jumps": ((3, 12), None, """\
A backward conditional jump is written as the inverted condition over a JUMP back
(instructions._expanded_backward_jump folds it back). So the test of an `if` that ends a loop
body jumps back to the loop head itself, each branch with its own back edge (3.10/3.11 jump
forward to the body's one back edge; 3.8/3.9 jump back directly). branches.py."""),
    "lined_exit_copies": ((3, 12), None, """\
A jump to a small exit block (straight code ending in a return: `return x`, `z(); return`)
is replaced by a copy of the block, written lines included (flowgraph.c
inline_small_or_no_lineno_blocks), so one `return x` reads as one per branch; only the
line-less copy of an implicit `return None` is no statement. (3.10 copies too, but its
normalization folds the copies back: inlined_exit_copies_310.) statements.py (ExitBlocks,
_inlined_exit), handlers.py (an except clause followed by a copy of the code after the try),
clause_breaks.py (an endless while left only by copies of its exit in except clauses)."""),
    "threaded_jumps_past_else": ((3, 12), None, """\
A test at the end of an `if` body may jump straight past the `else` instead of to the jump
over it (flowgraph.c threads a conditional jump to an unconditional one), so where the
body's own jumps land past the else tells where the `if` ends. Not every such test is
threaded (3.13 keeps some on the jump); 3.8/3.9 thread them too, read without this rule.
branches.py (if_statement)."""),
    "return_const": ((3, 12), (3, 14), """\
`return <constant>` is RETURN_CONST, so LOAD_CONST; RETURN_VALUE is a return copied into the
branches of a conditional expression. instructions._normalize_one, conditional_returns.py
(called from render.py)."""),
    "super_attr_calls": ((3, 12), None, """\
`super().attr` and `super(C, self).attr` are one LOAD_SUPER_ATTR, unless the module's top
scope names `super` (Python/codegen.c can_optimize_super_call asks the module's symbol
table): then `super()` is a plain call, which a function decompiled alone reproduces with an
`if False: super` header. expressions.op_CALL, render._module_imports."""),
    "cell_loads_are_load_fast": ((3, 13), None, """\
LOAD_CLOSURE is a pseudo-instruction: a cell is loaded with LOAD_FAST on its slot.
instructions.CLOSURE_IS_LOAD_FAST."""),
    "repeated_store_pops": ((3, 13), None, """\
Of two stores to one local in a row, the first is a POP_TOP (`a, _, _ = t` unpacks into
STORE_FAST a; POP_TOP; STORE_FAST _). statements.op_POP_TOP."""),
    "while_tested_at_top_only_again": ((3, 14), None, """\
The bottom test of `while` is gone again: a backward conditional jump is the back edge of a
body that ends with `if c: break`. statements.py (_find_loops, _last_back_edge),
branches.py (conditions, `continue`, _while_without_bottom_test)."""),
    "unbound_exit": ((3, 14), None, """\
`with` keeps __exit__ unbound with the manager above it as the call's self, so the exit
handler pops one more value. handlers.py (the with body's stack, _with_handler_end)."""),
    "docstring_flag": ((3, 14), None, """\
A function's docstring is co_consts[0] only when CO_HAS_DOCSTRING says so.
emit.code_docstring."""),
    "annotate_functions": ((3, 14), None, """\
Annotations are computed by an __annotate__ function (PEP 649). annotate.py, render.py."""),
    "two_slot_iterators": ((3, 15), None, """\
An iterator takes two stack slots (GET_ITER pushes one more). expressions.ITER_SLOTS."""),
}

VERSIONS = tuple((3, minor) for minor in range(8, 16))


class CompilerProfile(object):
    """The template facts of one CPython version, as attributes (see FACTS)."""

    __slots__ = ("version",) + tuple(sorted(FACTS))

    def __init__(self, version):
        self.version = tuple(version[:2])
        for name, (first, last, _) in FACTS.items():
            setattr(self, name, first <= self.version and (last is None or self.version < last))

    def facts(self):
        """{name: bool}, every fact of this version."""
        return dict((name, getattr(self, name)) for name in sorted(FACTS))

    def __repr__(self):
        held = [name for name, value in sorted(self.facts().items()) if value]
        return "<CompilerProfile %d.%d: %s>" % (self.version + (", ".join(held),))


_PROFILES = dict((version, CompilerProfile(version)) for version in VERSIONS)


def profile_for(version):
    """The profile of CPython ``version`` (a (major, minor) tuple); KeyError outside 3.8-3.15."""
    return _PROFILES[tuple(version[:2])]


PROFILE = _PROFILES.get(tuple(sys.version_info[:2])) or CompilerProfile(sys.version_info)
