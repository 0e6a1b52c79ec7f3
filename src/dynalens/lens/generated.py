"""Which code objects Dynamo generated, and the view of them the lens decompiles.

A module of its own, below both the lens's dump (source.py) and the decompiler's front door:
``dynalens.decompile()`` of a resume function or a transformed code object (when torch is
loaded) reads it the lens's way through ``generated_view``, and the lens decompiles through
``dynalens.decompile()``; with these in source.py the two imported each other.
"""

from .noise import simplify


def renamed_lambda(code, name):
    """A `<lambda>` code object renamed `name`: Dynamo's transformed code of a lambda is a
    sequence of statements, so it is decompiled as the `def` it is dumped as."""
    if code.co_name != "<lambda>" or not name:
        return code
    extra = {"co_qualname": name} if hasattr(code, "co_qualname") else {}
    return code.replace(co_name=name, **extra)


RESUME_PREFIX = "torch_dynamo_resume_in_"


def is_generated(code):
    """Did Dynamo make this code object: a resume function, or transformed code it installed?"""
    if code.co_name.startswith(RESUME_PREFIX):
        return True
    try:
        from torch._dynamo.convert_frame import output_codes

        return code in output_codes
    except Exception:
        return False


def generated_view(code, name=None):
    """(code, notes, name) to decompile for Dynamo's generated code, the lens's way.

    `dynalens.decompile()` calls this (when torch is loaded) so that a resume function or a
    transformed code object reads as in the dump: what `noise.simplify` leaves out is left out
    (with `notes` saying what), and a lambda's transformed code becomes a `def`. Any other code
    object comes back unchanged, with no notes.
    """
    if not is_generated(code):
        return code, [], name
    clean, notes, _ = simplify(code)
    if clean.co_name == "<lambda>" and not name:
        name = "transformed_lambda"
    return renamed_lambda(clean, name), notes, name
