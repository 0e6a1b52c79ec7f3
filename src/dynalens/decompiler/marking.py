"""Verify what the decompiler wrote and say so in the text: it is never silently wrong.

``finish`` takes the source the core rendered for a code object, compiles it once and compares
every code object in it with its original (verify.check_tree). Then it inserts, as whole lines,
so that nothing already verified moves within a line:

* ``# dynalens: not exact: <first difference>`` directly above the ``def``/``class`` line of
  each code object that does not match (above the statement holding a lambda or comprehension,
  at the top for a module). "Match" means the same bytecode; for code the caller says was
  generated (Dynamo's), the dataflow check; for other code written with temporaries the
  marker adds when the dataflow check holds;
* for each stub fallback.py left where a function or class could not be decompiled,
  ``# dynalens: could not decompile: <why>`` and, for a function, the decorator that gives it
  its original code object back, with that decorator's helper after the module docstring and
  ``from __future__`` imports.

With ``strict`` the first problem raises :class:`DecompilationError` instead.
"""

import ast
import marshal

from . import fallback
from .errors import DecompilationError
from .verify import _dataflow, check_tree

NOT_EXACT = "# dynalens: not exact: "
NOT_DECOMPILED = "# dynalens: could not decompile: "
_DEFINITION_STARTS = ("def ", "async def ", "class ")
_LONGEST = 300  # characters of a difference kept on its marker line


def check(code, text, session, module=None):
    """What verifying ``text`` finds: ``check_tree``'s (differences, found) for the session's
    stubs and kind of code (``finish`` takes it as ``checked`` when the caller asked first);
    ``module``: ``text`` compiled already (verify.compiled_source)."""
    return check_tree(code, text, temporaries=getattr(session, "generated", False),
                      skip=getattr(session, "fallbacks", {}), module=module)


def finish(code, text, session, indent="    ", strict=False, checked=None):
    """``text`` verified and marked (see module docstring)."""
    fallbacks = getattr(session, "fallbacks", {})
    generated = getattr(session, "generated", False)
    differences, found = checked or check(code, text, session)
    if not differences and not fallbacks and fallback.HELPER not in text:
        return text  # (the usual case: nothing to mark, no stub to place, what the end finds)
    if differences and not generated and getattr(session, "temp_count", 0) > 0:
        _note_dataflow(differences)
    placed = [(fallbacks[key], stub) for key, stub in found.items()
              if fallback.HELPER in stub.co_names or fallbacks[key].kind == "class"]
    made_in_place = [item for item in fallbacks.values() if item.kind == "expression"]
    stubs_in_text = sum(1 for line in text.split("\n")
                        if line.lstrip(" \t(").startswith(fallback.HELPER)) \
        if fallback.HELPER in text else 0  # (no need to look line by line for it otherwise)
    if len([1 for item, _ in placed if item.kind == "function"]) != stubs_in_text:
        # Only when the recompiled code objects could not be paired with the originals: a
        # stub left without its decorator would run an empty body, so say so rather than that.
        raise DecompilationError("internal error: %d function(s) could not be decompiled and "
                                 "their original code could not be placed" % stubs_in_text,
                                 code=code)
    if made_in_place:
        # the original code is loaded where the function was made: the enclosing code object
        # differs there (already marked), and the line says why
        differences = [d for d in differences if id(d.code) not in fallbacks]
    if strict:
        if differences:
            raise DecompilationError("not exact: " + differences[0].difference,
                                     code=differences[0].code)
    if not differences and not placed and not made_in_place:
        return text
    lines = text.split("\n")
    inserts = {}
    for item in made_in_place:
        # ast.unparse writes a simple statement on one line: the one holding the data
        data = repr(marshal.dumps(item.code))
        for at, line in enumerate(lines, 1):
            if data in line:
                inserts.setdefault(at, []).append(_indentation(line) + NOT_DECOMPILED
                                                  + _one_line(item.message))
                break
    helper_needed = False
    for item, stub in placed:
        at = _definition_line(lines, stub.co_firstlineno)
        pad = _indentation(lines[at - 1])
        added = [pad + NOT_DECOMPILED + _one_line(item.message)]
        if item.kind == "function":
            added.append(pad + fallback.decorator_line(item.code))
            helper_needed = True
        inserts.setdefault(at, []).extend(added)
    for difference in differences:
        at = difference.line or 1
        if difference.compiled is not None and not difference.compiled.co_name.startswith("<"):
            at = _definition_line(lines, at)
        at = min(max(at, 1), len(lines))
        inserts.setdefault(at, []).insert(0, _indentation(lines[at - 1]) + NOT_EXACT
                                          + _one_line(difference.difference))
    if helper_needed:
        at = _helper_line(text, len(lines))
        inserts.setdefault(at, [])[0:0] = fallback.helper_lines(indent) + [""]
    out = []
    for number, line in enumerate(lines, 1):
        out.extend(inserts.get(number, ()))
        out.append(line)
    return "\n".join(out)


def _note_dataflow(differences):
    """Output written with temporaries cannot recompile to the same bytecode, but the dataflow
    check can still say it does the same: worth saying on the marker."""
    for difference in differences:
        if difference.compiled is not None and _dataflow(difference.code,
                                                         difference.compiled) is None:
            difference.difference += ("; it does the same operations in the same order "
                                      "(dataflow check)")


def _one_line(message):
    message = " ".join(str(message).split())
    if message.startswith("first difference: "):
        message = message[len("first difference: "):]
    if len(message) > _LONGEST:
        message = message[:_LONGEST - 3] + "..."
    return message


def _indentation(line):
    return line[:len(line) - len(line.lstrip(" \t"))]


def _definition_line(lines, first):
    """The ``def``/``class`` line of a definition starting (decorators first) at ``first``."""
    for number in range(max(first, 1), len(lines) + 1):
        if lines[number - 1].lstrip(" \t").startswith(_DEFINITION_STARTS):
            return number
    return max(first, 1)


def _helper_line(text, count):
    """The first line after the module docstring and ``from __future__`` imports."""
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if node is tree.body[0] and isinstance(node, ast.Expr) and isinstance(
                node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        decorators = getattr(node, "decorator_list", None)
        return min([node.lineno] + [d.lineno for d in decorators or ()])
    return count
