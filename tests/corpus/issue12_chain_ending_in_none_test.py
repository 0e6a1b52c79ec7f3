"""A chained comparison whose last comparison is ``is None`` / ``is not None`` in a test:
3.11+ fold that comparison into the jump (POP_JUMP_IF_[NOT_]NONE), so the chain has no final
compare instruction; normalization writes it back as ``None; IS_OP; POP_JUMP_IF_*``."""


def uuid1(node=None, clock_seq=None):
    if _generate_time_safe is not None and node is clock_seq is None:
        return 1
    return 2


def with_else(a, b):
    if a is b is None:
        x()
    else:
        y()
    z()


def not_none(a, b):
    if a is b is not None:
        return 1
    z()


def in_or(a, b, c):
    if a is b is None or c:
        x()


def in_and(a, b, c):
    if c and a < b is not None:
        x()
    return a
