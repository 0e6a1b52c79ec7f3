"""The keys under which two code objects' instructions are compared.

Both comparisons of a decompiled output with its original use these: the bytecode comparison
(verify.py) and the dataflow check for generated code (dataflow.py, dataflow_lists.py). They
live here, below both, so that neither check imports the other to get them.

- ``const_key``: constants compare by type and value, not by ``==`` (1, 1.0 and True differ).
- ``split_superinstructions``: 3.13+ fused local loads/stores depend on line layout, so both
  sides are compared as their halves.
- ``same_argument``: two instructions' arguments compared by ``const_key`` (the structurer
  tells copied blocks by it).
- ``jump_target``: the offset an instruction jumps to, or None (3.13+ ``dis`` says it itself).

Pure stdlib; CPython 3.8 to 3.15.
"""

import dis

__all__ = ["const_key", "jump_target", "same_argument", "split_superinstructions",
           "SUPERINSTRUCTIONS"]

_CodeType = type(compile("", "", "exec"))

JUMP_OPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))

# 3.13+ fuse two local loads/stores into one instruction only when both sit on the same line,
# so the fused form depends on layout: compare the halves instead.
SUPERINSTRUCTIONS = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST", "LOAD_FAST"),
}


def const_key(value, top=None):
    """A hashable key under which constants compare by type and value.

    1, 1.0 and True differ; 0.0 and -0.0 differ; NaN equals NaN; tuples and frozensets are
    compared element by element; nested code objects by name (their bodies are compared
    recursively elsewhere).
    """
    kind = type(value)
    if kind is float or kind is complex:
        return (kind.__name__, repr(value))
    if kind is tuple:
        return ("tuple", tuple(const_key(item) for item in value))
    if kind is frozenset:
        return ("frozenset", frozenset(const_key(item) for item in value))
    if kind is slice:
        return ("slice", const_key(value.start), const_key(value.stop), const_key(value.step))
    if kind is _CodeType:
        return ("code", value.co_name)
    try:
        hash(value)
    except TypeError:
        return (kind.__name__, repr(value))
    return (kind.__module__, kind.__qualname__, value)


def same_argument(a, b):
    """Whether instructions ``a`` and ``b`` (normalized or ``dis``) have the same argument
    value, constants compared by ``const_key``: ``return 1`` is no copy of ``return True``."""
    x, y = a.argval, b.argval
    if type(x) is _CodeType or type(y) is _CodeType:
        return x == y  # the same function body, not only the same name
    return const_key(x) == const_key(y)


def split_superinstructions(instructions):
    """``instructions`` with each 3.13+ fused local load/store replaced by its two halves."""
    out = []
    for ins in instructions:
        halves = SUPERINSTRUCTIONS.get(ins.opname)
        if halves is None or not isinstance(ins.argval, tuple) or len(ins.argval) != 2:
            out.append(ins)
            continue
        for opname, name in zip(halves, ins.argval):
            out.append(ins._replace(opname=opname, opcode=dis.opmap.get(opname, ins.opcode),
                                    argval=name, argrepr=name))
    return out


def jump_target(ins):
    """The offset ``ins`` jumps to, or None when it is no jump."""
    target = getattr(ins, "jump_target", None)  # 3.13+
    if target is not None:
        return target
    if ins.opcode in JUMP_OPS and ins.arg is not None:
        return ins.argval
    return None
