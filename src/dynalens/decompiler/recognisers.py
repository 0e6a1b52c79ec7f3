"""The recognisers, registered in one place and one order (see ``registry.py``).

Each block below names what one recogniser family handles: the opcodes it reads (its handler
wins over the walker core's ``op_*`` method; where it refines another family's handler it calls
that one itself) and the functions that code below the family calls through ``ENTRY``.
Importing this module (render.py does) fills the registry.
"""

from . import (annotate, definitions, exception_groups, inline_comprehensions, legacy_structure,
               handlers_legacy, patterns, type_params)
from .registry import ENTRY, OPCODES, chain
from .statements import StatementWalker

# -- stores: the steps that may take over a store before the walker core makes it a statement
ENTRY.assign = chain(annotate.assign_annotate_function,
                     inline_comprehensions.assign_saved_local,
                     StatementWalker._assign)
# (3.14+: where a module's or class's numbered annotation ran, annotate.place_annotations)
OPCODES["ANNOTATED"] = annotate.op_ANNOTATED

# -- 3.8/3.9 loops (legacy_structure.py): the else a range's last compound statement lost
ENTRY.compound_end = legacy_structure.compound_end

# -- inline comprehensions (3.12+): a loop that builds a list/set/dict in place is read as
# the comprehension; otherwise the plain for / async for handler runs (branches.py, handlers.py)
OPCODES["FOR_ITER"] = inline_comprehensions.op_FOR_ITER
OPCODES["GET_ANEXT"] = inline_comprehensions.op_GET_ANEXT
OPCODES["LOAD_FAST_AND_CLEAR"] = inline_comprehensions.op_LOAD_FAST_AND_CLEAR

# -- try statements where the walk meets a protected range (statements._structure_at)
ENTRY.do_try = exception_groups.do_try

# -- definitions: def, lambda, class, comprehensions (their own code objects), PEP 695 generics;
# the cell stores and loads that a class body's __classcell__ and generics change
OPCODES["CALL_INTRINSIC_2"] = definitions.op_CALL_INTRINSIC_2
OPCODES["LOAD_FROM_DICT_OR_DEREF"] = definitions.op_LOAD_FROM_DICT_OR_DEREF
OPCODES["PUSH_VALUE"] = definitions.op_PUSH_VALUE
OPCODES["STORE_DEREF"] = definitions.op_STORE_DEREF
ENTRY.class_def = definitions.class_def
ENTRY.comprehension = definitions.comprehension
ENTRY.function_def = definitions.function_def
ENTRY.generic_definition = definitions.generic_definition
ENTRY.lambda_expr = definitions.lambda_expr
ENTRY.type_param_intrinsic = definitions.type_param_intrinsic
ENTRY.is_generic_scope = type_params.is_generic_scope

# -- match statements (3.10+), read where the walk meets their first pattern: COPY 1 of the
# subject (else the core's COPY) or a MATCH_* opcode
OPCODES["COPY"] = patterns.op_COPY
OPCODES["MATCH_CLASS"] = patterns.op_MATCH_CLASS
OPCODES["MATCH_MAPPING"] = patterns.op_MATCH_MAPPING
OPCODES["MATCH_SEQUENCE"] = patterns.op_MATCH_SEQUENCE

# -- 3.8-3.10 only: the SETUP_* forms of try / with, the 3.8 finally plumbing, the *_UNPACK
# builds; and their judgement of a written `return` (its line sits on the unwinding)
OPCODES["BEFORE_ASYNC_WITH_LEGACY"] = handlers_legacy.op_BEFORE_ASYNC_WITH_LEGACY
OPCODES["BEGIN_FINALLY"] = handlers_legacy.op_BEGIN_FINALLY
OPCODES["BUILD_LIST_UNPACK"] = handlers_legacy.op_BUILD_LIST_UNPACK
OPCODES["BUILD_MAP_UNPACK"] = handlers_legacy.op_BUILD_MAP_UNPACK
OPCODES["BUILD_MAP_UNPACK_WITH_CALL"] = handlers_legacy.op_BUILD_MAP_UNPACK_WITH_CALL
OPCODES["BUILD_SET_UNPACK"] = handlers_legacy.op_BUILD_SET_UNPACK
OPCODES["BUILD_TUPLE_UNPACK"] = handlers_legacy.op_BUILD_TUPLE_UNPACK
OPCODES["BUILD_TUPLE_UNPACK_WITH_CALL"] = handlers_legacy.op_BUILD_TUPLE_UNPACK_WITH_CALL
OPCODES["CALL_FINALLY"] = handlers_legacy.op_CALL_FINALLY
OPCODES["CALL_FUNCTION_EX_NO_NULL"] = handlers_legacy.op_CALL_FUNCTION_EX_NO_NULL
OPCODES["END_FINALLY"] = handlers_legacy.op_END_FINALLY
OPCODES["POP_FINALLY"] = handlers_legacy.op_POP_FINALLY
OPCODES["SETUP_ASYNC_WITH"] = handlers_legacy.op_SETUP_ASYNC_WITH
OPCODES["SETUP_FINALLY"] = handlers_legacy.op_SETUP_FINALLY
OPCODES["SETUP_WITH"] = handlers_legacy.op_SETUP_WITH
OPCODES["WITH_CLEANUP_FINISH"] = handlers_legacy.op_WITH_CLEANUP_FINISH
OPCODES["WITH_CLEANUP_START"] = handlers_legacy.op_WITH_CLEANUP_START
ENTRY.is_implicit_return = handlers_legacy.is_implicit_return
