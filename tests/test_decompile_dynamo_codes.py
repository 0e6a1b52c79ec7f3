"""Code objects Dynamo wrote, kept marshalled, for shapes no test assembler here can build.

tests/bytecode_builder.py encodes 3.11 only; shapes Dynamo emits on other versions are kept as
the code object itself (``marshal``, readable only by the CPython version in its name), as the
lens hands it to the decompiler (after noise.simplify). They were captured with
``DYNALENS_FAILED_CODES_DIR`` set while running the lens workloads (bench/lens_frames.py).
No torch is needed to run these tests.
"""

import marshal
import os
import sys
import textwrap

import pytest

from dynalens.decompiler.api import decompile
from dynalens.decompiler.verify import verify

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dynamo_codes")


def _load(name, version):
    if sys.version_info[:2] != version:
        pytest.skip("marshalled by CPython %d.%d" % version)
    with open(os.path.join(HERE, name), "rb") as fh:
        return marshal.load(fh)


def test_resume_inside_with_whose_handler_is_jumped_over():
    # torch 2.15 on 3.13, the optimizer's step wrapper resumed inside `with ___stack0():`: the
    # with's handler sits between the jump to the resumed code and that code
    code = _load("py313_torch215_resume_in_with.marshal", (3, 13))
    source = decompile(code)
    assert "with ___stack0():" in source
    assert "self._optimizer_step_code()" in source
    # the suppressed exit pushes None, jumps to the join and pops it there: no `None` line
    assert "None" not in [line.strip() for line in source.splitlines()], source
    result = verify(code, source, temporaries=True)
    assert result, result.difference


def test_handler_jumped_over_with_a_value_on_the_stack_stays_in_place():
    # torch 2.15 on 3.13, the optimizer's step wrapper: a context manager's __exit__ handler
    # jumped over with None on the stack; the walker reads it where it is (moving it to the
    # end is only the fallback when the walk fails)
    code = _load("py313_torch215_exit_handler_jumped_over.marshal", (3, 13))
    source = decompile(code)
    result = verify(code, source, temporaries=True)
    assert result, result.difference


def test_container_method_loaded_plainly_behind_a_null_matches_the_method_form():
    # torch 2.15 on 3.13, Mixtral's resume function of transformers' output_capturing wrapper
    # (torch_dynamo_resume_in_wrapper_at_355): Dynamo writes `lst.append(v)` as a plain
    # LOAD_ATTR append and a NULL, the recompiled source with the method form; both defer the
    # lookup to the call (before: "expected LOAD_ATTR append, got LOAD_ATTR ...")
    code = _load("py313_torch215_append_after_plain_load_and_null.marshal", (3, 13))
    source = decompile(code)
    assert "collected_outputs[key].append(outputs.vision_hidden_states)" in source
    result = verify(code, source, temporaries=True)
    assert result, result.difference


def test_compiled_code_layout_is_left_alone():
    from dynalens.decompiler.generated_layout import move_jumped_over_handlers
    from dynalens.decompiler.instructions import exception_entries, normalize

    namespace = {}
    exec(textwrap.dedent("""
        def f(cm, x):
            with cm:
                try:
                    y = g(x)
                except KeyError:
                    return None
                return y
    """), namespace)
    code = namespace["f"].__code__
    instrs, offsets = normalize(code)
    entries = exception_entries(code, offsets)
    before = [(i.op, i.argval, i.target) for i in instrs]
    moved, new_entries = move_jumped_over_handlers(instrs, entries)
    assert moved is instrs and new_entries is entries
    assert [(i.op, i.argval, i.target) for i in moved] == before
