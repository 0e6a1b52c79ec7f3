"""The recognisers, registered in one place and one order (see ``registry.py``).

Each block names what one recogniser family reads: its opcode handlers (they replace the
walker core's; a family that refines another family's handler calls that one by name, noted
here) and the functions that code below the family calls through ``ENTRY``. Importing this
module (render.py does) fills the registry; nothing else writes to it.

Where a walk meets a construct: at an opcode, through the opcode table; at a structure point
(a protected range or a loop head starts at the index), through ``STRUCTURE_POINTS``, in the
order given at the end.
"""

from . import (annotate, branches, cold_blocks, comprehension_bodies, definitions,
               exception_groups, handlers, handlers_legacy, inline_comprehensions, legacy_structure,
               patterns, type_params)
from .profile import PROFILE
from .registry import ENTRY, STRUCTURE_POINTS, chain, register, register_core
from .statements import StatementWalker

# -- the walker core (expressions.py, statements.py): every opcode no family below claims
register_core(StatementWalker)

# -- stores: the steps that may take over a store before the walker core makes it a statement
# (each family's step only where its bytecode can occur: before 3.12 the chain is the core's
# step alone, and every store of every walk calls it straight)
ENTRY.assign = chain(annotate.assign_annotate_function  # 3.14+ __annotate__: no statement
                     if PROFILE.annotate_functions else None,
                     inline_comprehensions.assign_saved_local  # a saved local put back
                     if PROFILE.inline_comprehensions else None,  # (LOAD_FAST_AND_CLEAR's)
                     StatementWalker._assign)
# (3.14+: where a module's or class's numbered annotation ran, annotate.place_annotations)
register({"ANNOTATED": annotate.op_ANNOTATED})

# -- conditions, if / while / for, chained comparisons and the jumps that end them (branches.py);
# the plain for loop is reached through the inline comprehension's FOR_ITER (below)
register({
    "POP_JUMP_IF_FALSE": branches.op_POP_JUMP_IF_FALSE,
    "POP_JUMP_IF_TRUE": branches.op_POP_JUMP_IF_TRUE,
    "POP_JUMP_IF_NONE": branches.op_POP_JUMP_IF_NONE,
    "POP_JUMP_IF_NOT_NONE": branches.op_POP_JUMP_IF_NOT_NONE,
    "JUMP_IF_FALSE_OR_POP": branches.op_JUMP_IF_FALSE_OR_POP,
    "JUMP_IF_TRUE_OR_POP": branches.op_JUMP_IF_TRUE_OR_POP,
    "JUMP": branches.op_JUMP,
    "SWAP": branches.op_SWAP,  # a chained comparison or a tuple assignment, else the core's
})
ENTRY.do_while = branches.do_while
ENTRY.do_while_true = branches.do_while_true
ENTRY.break_target = branches._break_target
ENTRY.is_loop_jump = branches._is_loop_jump
ENTRY.clause_exit_break = branches.clause_exit_break

# -- comprehension bodies: `.0` and the element appends (comprehension_bodies.py; each falls
# back to the core's handler by name outside a comprehension)
register({
    "LOAD_FAST": comprehension_bodies.op_LOAD_FAST,
    "LIST_APPEND": comprehension_bodies.op_LIST_APPEND,
    "SET_ADD": comprehension_bodies.op_SET_ADD,
    "MAP_ADD": comprehension_bodies.op_MAP_ADD,
})

# -- inline comprehensions (3.12+): a loop that builds a list/set/dict in place is read as the
# comprehension; otherwise the plain for (branches.op_FOR_ITER) / async for
# (handlers.op_GET_ANEXT) handler runs, called by name
register({
    "FOR_ITER": inline_comprehensions.op_FOR_ITER,
    "GET_ANEXT": inline_comprehensions.op_GET_ANEXT,
    "LOAD_FAST_AND_CLEAR": inline_comprehensions.op_LOAD_FAST_AND_CLEAR,
})

# -- try / with / async for of 3.11+ (handlers.py) and the handlers 3.12+ moves past the code
# after them (cold_blocks.py); except* (exception_groups.py) reads a try first and hands any
# other to handlers.do_try
ENTRY.do_try = exception_groups.do_try
register({
    "BEFORE_WITH": handlers.op_BEFORE_WITH,
    "BEFORE_ASYNC_WITH": handlers.op_BEFORE_ASYNC_WITH,
    "RERAISE": handlers.op_RERAISE,  # a copied finally exit ends the body, else the core's
})
ENTRY.exit_call_start = handlers._exit_call_start
ENTRY.with_handler_end = handlers._with_handler_end
ENTRY.cold_code = cold_blocks.cold_code
ENTRY.warm_protected_end = cold_blocks.warm_protected_end

# -- 3.8-3.10 only: the SETUP_* forms of try / with, the 3.8 finally plumbing, the *_UNPACK
# builds (handlers_legacy.py); 3.8/3.9 judge a written `return` by its unwinding line, and
# rebuild the else a range's last compound statement lost (legacy_structure.py)
register({
    "SETUP_FINALLY": handlers_legacy.op_SETUP_FINALLY,
    "SETUP_WITH": handlers_legacy.op_SETUP_WITH,
    "SETUP_ASYNC_WITH": handlers_legacy.op_SETUP_ASYNC_WITH,
    "BEFORE_ASYNC_WITH_LEGACY": handlers_legacy.op_BEFORE_ASYNC_WITH_LEGACY,
    "WITH_CLEANUP_START": handlers_legacy.op_WITH_CLEANUP_START,
    "WITH_CLEANUP_FINISH": handlers_legacy.op_WITH_CLEANUP_FINISH,
    "BEGIN_FINALLY": handlers_legacy.op_BEGIN_FINALLY,
    "CALL_FINALLY": handlers_legacy.op_CALL_FINALLY,
    "POP_FINALLY": handlers_legacy.op_POP_FINALLY,
    "END_FINALLY": handlers_legacy.op_END_FINALLY,
    "CALL_FUNCTION_EX_NO_NULL": handlers_legacy.op_CALL_FUNCTION_EX_NO_NULL,
    "BUILD_TUPLE_UNPACK": handlers_legacy.op_BUILD_TUPLE_UNPACK,
    "BUILD_TUPLE_UNPACK_WITH_CALL": handlers_legacy.op_BUILD_TUPLE_UNPACK_WITH_CALL,
    "BUILD_LIST_UNPACK": handlers_legacy.op_BUILD_LIST_UNPACK,
    "BUILD_SET_UNPACK": handlers_legacy.op_BUILD_SET_UNPACK,
    "BUILD_MAP_UNPACK": handlers_legacy.op_BUILD_MAP_UNPACK,
    "BUILD_MAP_UNPACK_WITH_CALL": handlers_legacy.op_BUILD_MAP_UNPACK_WITH_CALL,
})
ENTRY.is_implicit_return = handlers_legacy.is_implicit_return
ENTRY.compound_end = legacy_structure.compound_end
ENTRY.dead_after = legacy_structure.dead_after

# -- match statements (3.10+), read where the walk meets their first pattern: COPY 1 of the
# subject (else the core's COPY, by name) or a MATCH_* opcode
register({
    "COPY": patterns.op_COPY,
    "MATCH_SEQUENCE": patterns.op_MATCH_SEQUENCE,
    "MATCH_MAPPING": patterns.op_MATCH_MAPPING,
    "MATCH_CLASS": patterns.op_MATCH_CLASS,
})

# -- definitions: def, lambda, class, comprehensions (their own code objects), PEP 695 generics,
# and the cell stores and loads that a class body's __classcell__ and generics change (each
# calls the core's by name when it is none of those)
register({
    "STORE_DEREF": definitions.op_STORE_DEREF,
    "LOAD_FROM_DICT_OR_DEREF": definitions.op_LOAD_FROM_DICT_OR_DEREF,
    "CALL_INTRINSIC_2": definitions.op_CALL_INTRINSIC_2,
    "PUSH_VALUE": definitions.op_PUSH_VALUE,
})
ENTRY.function_def = definitions.function_def
ENTRY.class_def = definitions.class_def
ENTRY.lambda_expr = definitions.lambda_expr
ENTRY.comprehension = definitions.comprehension
ENTRY.generic_definition = definitions.generic_definition
ENTRY.type_param_intrinsic = definitions.type_param_intrinsic
ENTRY.is_generic_scope = type_params.is_generic_scope

# -- structure points, in order (statements._structure_at): a try first (unless a loop that starts
# at the same index holds it: then the loop), then a tested while, a while True, and the tested
# while that opens a while True's body
STRUCTURE_POINTS[:] = [
    StatementWalker.try_here,  # -> ENTRY.do_try: except* first, then any other try
    StatementWalker.tested_while_here,  # -> ENTRY.do_while
    StatementWalker.while_true_here,  # -> ENTRY.do_while_true
    StatementWalker.enclosed_tested_while_here,  # -> ENTRY.do_while
]
