"""Line breaks inside a comprehension, and between the targets of an unpacking, where the
original had them.

Why: CPython decides some bytecode from the line layout alone. From 3.12, when a
comprehension's ``if`` sits on the same line as its element, a conditional jump to the loop's
jump back is replaced by a copy of that jump; on separate lines it is not (the copy would lose
the line event). Both do the same, so ``verify()`` calls either exact, but only the same layout
is exact under ``verify(strict=True)`` (issue 12's strict figure). ``ast.unparse`` writes every
comprehension on one line, which is the most common reason an exact output is not strictly exact.

The targets of an unpacking written on several lines (``(a,\n _,\n _) = f()``) are a case
where even ``verify()`` sees the layout: from 3.13 the compiler drops a store to a name that
the next instruction stores to again on the same line (a ``POP_TOP`` instead), so ``a, _, _ =
f()`` on one line is other instructions. The walker stamps each unpacking target with the line
of its store (``STORE_LINE``); the unparser breaks the line before a target stored on a later
line than the one before it.

How: the walker stamps each value with the line of the instruction that made it (``_line``, in
``statements.py``, beside ``_made``); :func:`mark_comprehension` compares the first line of a
comprehension's parts in source order and records where a part starts a later line than the
one before; the unparser (``fast_unparse.py``) writes a line break there instead of a space.
Inside the brackets a break is always legal Python, except inside an f-string's replacement
field before 3.12, so none is written there. A wrong stamp can only cost strictness: line
breaks never change what ``verify()`` without ``strict`` says.
"""

import ast

BREAK_BEFORE_FOR = "_break_before_for"  # on an ast.comprehension: a bool
BREAK_BEFORE_IFS = "_break_before_ifs"  # on an ast.comprehension: a bool per `if`
STORE_LINE = "_store_line"  # on an unpacking's target: the line of its store
INLINE_BODY = "_inline_body"  # on an ast.Try: its one statement on the `try:` line (nop_lines)


def first_line(node):
    """The smallest line stamped on ``node`` or anything in it (every node ``ast.walk``
    finds), or None.

    Not ``ast.walk``: its generators per node and per field (``iter_child_nodes``,
    ``iter_fields``) cost three times this walk, which is asked of every comprehension's
    parts and of loop bodies' statements. (``emit.child_nodes`` is the same walk one level
    down, but emit imports this module through fast_unparse: written out here.)"""
    lines = []
    todo = [node]
    while todo:
        part = todo.pop()
        line = getattr(part, "_line", None)
        if line is not None:
            lines.append(line)
        for field in part._fields:
            value = getattr(part, field, None)
            if isinstance(value, _AST):
                todo.append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        todo.append(item)
    return min(lines) if lines else None


_AST = ast.AST


def mark_comprehension(node, session):
    """Record on ``node``'s generators where the original broke the line (see module
    docstring). Generated code (Dynamo's: ``session.generated``) has no layout to keep."""
    if getattr(session, "generated", False):
        return node
    current = first_line(node.key if isinstance(node, ast.DictComp) else node.elt)
    for generator in node.generators:
        line = first_line(generator.iter)
        starts_later = _later(line, current)
        setattr(generator, BREAK_BEFORE_FOR, starts_later)
        if starts_later:
            current = line
        breaks = []
        for condition in generator.ifs:
            line = first_line(condition)
            starts_later = _later(line, current)
            breaks.append(starts_later)
            if starts_later:
                current = line
        setattr(generator, BREAK_BEFORE_IFS, breaks)
    return node


def _later(line, current):
    return line is not None and current is not None and line > current


def target_breaks(tuple_node):
    """Whether each element of the unpacking target ``tuple_node`` starts a later line than
    the one before it (see the module docstring); None where none does."""
    breaks, current = [], None
    for element in tuple_node.elts:
        line = getattr(element.value if isinstance(element, ast.Starred) else element,
                       STORE_LINE, None)
        breaks.append(_later(line, current))
        if line is not None:
            current = line
    return breaks if any(breaks) else None
