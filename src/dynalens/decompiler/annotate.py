"""3.14+ annotations: the compiler-made ``__annotate__(format)`` functions (PEP 649/749).

Since 3.14 annotations are not evaluated where they are written: the compiler emits a function
``__annotate__`` that raises ``NotImplementedError`` for formats it does not handle and returns
the annotations dict.  A function's annotations become ``return {'x': int, 'return': str}``; a
class's or module's become stores into a dict, each guarded by ``__conditional_annotations__``
at module level.  Its bytecode has shapes no source spells (``COMPARE_OP >`` without the bool
flag), so an ``__annotate__`` decompiled on its own is written as what makes the compiler emit
it: a ``def`` with those annotations, or annotated names in the owning class or module.
"""

import ast

from .expressions import name
from .registry import DECLINE

# How the owner of a standalone ``__annotate__`` is called in the output; the owner's own code
# object is not the one being reproduced, so its name is free.
OWNER = "__annotated__"


def is_format_check(stmt):
    """``if format > 2: raise NotImplementedError``, the guard of a function the compiler made."""
    return (isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare) and
            isinstance(stmt.test.left, ast.Name) and stmt.test.left.id == "format" and
            len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Raise))


def _function_owner(ret):
    """``def __annotated__(x: int) -> str: pass`` for ``return {'x': int, 'return': str}``."""
    if not isinstance(ret, ast.Dict) or not all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in ret.keys):
        return None
    annotations = dict((k.value, v) for k, v in zip(ret.keys, ret.values))
    if len(annotations) != len(ret.keys):
        return None
    params = [ast.arg(arg=k, annotation=v, type_comment=None)
              for k, v in annotations.items() if k != "return"]
    args = ast.arguments(posonlyargs=[], args=params, vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    node = ast.FunctionDef(name=OWNER, args=args, body=[ast.Pass()], decorator_list=[],
                           returns=annotations.get("return"), type_comment=None)
    if hasattr(ast, "TypeAlias"):
        node.type_params = []
    return [node]


def _stored_annotation(stmt, holder):
    """(name, annotation) for ``holder['name'] = annotation``, else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    # the first store may name the dict itself (it went to a temporary only after)
    held = (isinstance(target.value, ast.Name) and target.value.id == holder) or (
        isinstance(target.value, ast.Dict) and not target.value.keys)
    if isinstance(target, ast.Subscript) and held and isinstance(target.slice, ast.Constant) and \
            isinstance(target.slice.value, str):
        return target.slice.value, stmt.value
    return None


def _variables_owner(stmts):
    """``x: int`` statements for ``d = {}; [if 0 in __conditional_annotations__:] d['x'] = int
    ...; return d``."""
    if len(stmts) < 2 or not isinstance(stmts[0], ast.Assign) or \
            not isinstance(stmts[0].value, ast.Dict) or stmts[0].value.keys or \
            len(stmts[0].targets) != 1 or not isinstance(stmts[0].targets[0], ast.Name):
        return None
    holder = stmts[0].targets[0].id
    last = stmts[-1]
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name) and
            last.value.id == holder):
        return None
    out = []
    for stmt in stmts[1:-1]:
        number = None
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1:
            # `if i in __conditional_annotations__:` (the compiler's: the annotation ran)
            test = stmt.test
            if isinstance(test, ast.Compare) and isinstance(test.left, ast.Constant):
                number = test.left.value
            stmt = stmt.body[0]
        found = _stored_annotation(stmt, holder)
        if found is None:
            return None
        node = ast.AnnAssign(target=name(found[0], ast.Store()), annotation=found[1],
                             value=None, simple=1)
        node._annotated = number
        out.append(node)
    return out or None


def function_annotations(body, code=None):
    """{parameter or 'return': annotation} from a function's ``__annotate__`` body, or None."""
    owner = annotate_owner(body, code)
    if not owner or not isinstance(owner[0], ast.FunctionDef):
        return None
    found = dict((a.arg, a.annotation) for a in owner[0].args.args)
    if owner[0].returns is not None:
        found["return"] = owner[0].returns
    return found


CO_FUTURE_ANNOTATIONS = 0x1000000


def unstringify(node):
    """Under ``from __future__ import annotations`` the compiler stores each annotation as its
    source text: write the expression back (the compiler turns it into the same text)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return node
    return node


def annotate_owner(body, code=None, alone=False):
    """Statements whose compilation produces the ``__annotate__`` whose decompiled body is
    ``body``, or None when the body is not one the compiler makes.  ``code`` (the
    ``__annotate__`` code object) tells whether annotations were compiled as strings;
    ``alone``: the statements stand for the ``__annotate__`` decompiled on its own."""
    if not body or not is_format_check(body[0]):
        return None
    rest = body[1:]
    if code is not None and code.co_flags & CO_FUTURE_ANNOTATIONS:
        for stmt in rest:
            if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Dict):
                stmt.value.values = [unstringify(v) for v in stmt.value.values]
            elif isinstance(stmt, ast.Assign):
                stmt.value = unstringify(stmt.value)
    if len(rest) == 1 and isinstance(rest[0], ast.Return):
        return _function_owner(rest[0].value)
    found = _variables_owner(rest)
    if alone and found and code is not None and "__classdict__" in code.co_freevars:
        # written as its class (decompiled on its own): an annotation the compiler
        # numbered was inside a block of the body
        found = [ast.If(test=ast.Constant(value=True), body=[ann], orelse=[])
                 if getattr(ann, "_annotated", None) is not None else ann for ann in found]
    return found


def place_annotations(stmts, annotations):
    """Put ``x: T`` back into a module or class body from its ``__annotate__``: an assignment
    to ``x`` after the previous annotation becomes ``x: T = value``; an annotation without one
    (it compiles to nothing in the body) is written where the order of the dict needs it,
    never before the docstring (the compiler stores ``__doc__`` first, whatever follows).
    An annotation the compiler numbered (module level, and inside blocks of a class body:
    ``__conditional_annotations__``) goes where its ``ANNOTATED`` marker is, or in an
    ``if False:`` of its own where none is (its code was dead: ``if False: x: T``)."""
    markers = {}
    _find_markers(stmts, None, markers)
    at = 0
    if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Constant) \
            and isinstance(stmts[0].value.value, str):
        at = 1
    for ann in annotations:
        key = ann.target.id
        number = getattr(ann, "_annotated", None)
        if number is not None:
            found = markers.pop(number, None)
            if found is None:
                stmts.insert(at, ast.If(test=ast.Constant(value=False), body=[ann], orelse=[]))
                at += 1
                continue
            block, marker, top = found
            k = _index_of(block, marker)
            before = block[k - 1] if k else None
            if isinstance(before, ast.Assign) and len(before.targets) == 1 and \
                    isinstance(before.targets[0], ast.Name) and before.targets[0].id == key:
                ann = ast.AnnAssign(target=ann.target, annotation=ann.annotation,
                                    value=before.value, simple=1)
                block[k - 1:k + 1] = [ann]
            else:
                block[k] = ann
            if top is marker or top is before:
                top = ann
            at = max(at, _index_of(stmts, top) + 1)
            continue
        for k in range(at, len(stmts)):
            stmt = stmts[k]
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == key:
                stmts[k] = ast.AnnAssign(target=ann.target, annotation=ann.annotation,
                                         value=stmt.value, simple=1)
                at = k + 1
                break
        else:
            stmts.insert(at, ann)
            at += 1
    for block, marker, _ in markers.values():
        del block[_index_of(block, marker)]
        if not block:
            block.append(ast.Pass())
    return stmts


def _index_of(block, node):
    for k, stmt in enumerate(block):
        if stmt is node:
            return k
    raise ValueError("statement not in its block")


def _find_markers(block, top, markers):
    """{number: (block, marker, top-level statement holding it)} for the ``ANNOTATED``
    markers in ``block`` and the blocks nested in it (not in functions or classes); ``top``
    None: ``block`` is the body itself."""
    for stmt in block:
        holder = stmt if top is None else top
        number = getattr(stmt, "_annotated", None)
        if number is not None and isinstance(stmt, ast.Pass):
            markers[number] = (block, stmt, holder)
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if inner:
                _find_markers(inner, holder, markers)
        for part in list(getattr(stmt, "handlers", ())) + list(getattr(stmt, "cases", ())):
            _find_markers(part.body, holder, markers)


def assign_annotate_function(walker, target, value, out, ins):
    """A step of the store chain (recognisers.py): module and class bodies (3.14+) store their
    ``__annotate__`` function; no statement, its annotations are put back by
    :func:`place_annotations` (they collect in ``walker.annotations_found``)."""
    code = None  # (the name first: every store of every walk comes through here)
    if isinstance(target, ast.Name) and target.id in ("__annotate__", "__annotate_func__"):
        code = getattr(value, "code", None)
    if code is not None and code.co_name == "__annotate__" and \
            walker.kind in ("module", "class"):
        found = annotate_owner(walker.decompile_nested(code, "function"), code)
        if not found or not all(isinstance(s, ast.AnnAssign) for s in found):
            walker.fail("unrecognised __annotate__ function", ins)
        walker.annotations_found = list(walker.annotations_found) + found
        return None
    return DECLINE


def op_ANNOTATED(walker, ins, stack, out):
    """``__conditional_annotations__.add(i)`` (the pseudo-instruction ``ANNOTATED i``):
    annotation ``i`` ran here; a marker that :func:`place_annotations` replaces with the
    annotation."""
    marker = ast.Pass()
    marker._annotated = ins.argval
    out.append(marker)
