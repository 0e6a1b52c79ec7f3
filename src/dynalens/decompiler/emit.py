"""Statement lists -> the text of a program: the post-passes over a decompiled body, and unparsing.

Why a module of its own: these passes work on ``ast`` statements only (no walker, no
instructions), and structuring code below the renderer needs some of them (a ``match`` case or
an ``except*`` branch ends with the compiler's implicit return, which ``strip_trailing_return``
removes); kept in render.py they tied every structurer to the walker's front end in a cycle.
"""

import ast
import io
import tokenize

from .profile import PROFILE
from .fast_unparse import NEEDS_LINENO, unparse_statements
from .unparse_compat import to_source

CO_HAS_DOCSTRING = 0x4000000
_MATCH = getattr(ast, "Match", None)  # (3.10+; asked once: a failed getattr on a module is slow)


def code_docstring(code):
    """A function's docstring: co_consts[0] when it is a string before 3.14; since 3.14 only
    when the CO_HAS_DOCSTRING flag says so (the first constant may be any string)."""
    if not code.co_consts or not isinstance(code.co_consts[0], str):
        return None
    if PROFILE.docstring_flag and not code.co_flags & CO_HAS_DOCSTRING:
        return None
    return code.co_consts[0]


def is_docstring(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and \
        isinstance(stmt.value.value, str)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

_CHILD_FIELDS = {}  # node class -> the fields that may hold nodes


def child_nodes(node):
    """The nodes directly inside ``node``, as ``ast.iter_child_nodes`` finds them but as a list
    and without expression contexts (``Load``/``Store``/``Del``, which no post-pass reads).

    Why not ``ast.iter_child_nodes``: the post-passes that look at every node of an output
    (line facts, private names, generators) spent most of their time in its generic
    ``iter_fields`` machinery; the fields of each node class are looked up once here."""
    cls = node.__class__
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f != "ctx")
    found = []
    for field in fields:
        value = getattr(node, field, None)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, _AST):
                    found.append(item)
        elif isinstance(value, _AST):
            found.append(value)
    return found


_AST = ast.AST


_BLOCK_FIELDS = {}  # node class -> (its block fields, holds handlers, holds cases) or None


def statement_blocks(stmt):
    """The statement lists directly inside ``stmt``, not those of a nested scope (a nested
    function's body is its own code object's).

    Every post-pass asks this of every statement, and most statements (assignments,
    expressions, returns) hold no block: which fields may hold one is worked out once per
    node class (``_fields``), so those cost one lookup."""
    cls = stmt.__class__
    found = _BLOCK_FIELDS.get(cls, False)
    if found is False:
        found = _BLOCK_FIELDS[cls] = _block_fields(cls)
    if found is None:
        return []
    fields, handlers, cases = found
    blocks = []
    for field in fields:
        block = getattr(stmt, field, None)
        if block and isinstance(block, list) and isinstance(block[0], _STMT):
            blocks.append(block)
    if handlers:
        for handler in getattr(stmt, "handlers", ()):
            block = handler.body
            if block and isinstance(block, list) and isinstance(block[0], _STMT):
                blocks.append(block)
    if cases:
        for case in getattr(stmt, "cases", ()):
            block = case.body
            if block and isinstance(block, list) and isinstance(block[0], _STMT):
                blocks.append(block)
    return blocks


_STMT = ast.stmt


def _block_fields(cls):
    """What statement_blocks reads of a ``cls`` node: None for a scope or a class without
    any block field."""
    if issubclass(cls, _SCOPES):
        return None
    names = getattr(cls, "_fields", ())
    fields = tuple(field for field in ("body", "orelse", "finalbody") if field in names)
    handlers, cases = "handlers" in names, "cases" in names
    if not fields and not handlers and not cases:
        return None
    return fields, handlers, cases


def keep_generator(stmts):
    """A generator whose every ``yield`` the compiler dropped as unreachable (``while False:
    yield None``, ``return; yield``) is still a generator: end the body with ``if False:
    yield``, which compiles to nothing but keeps the flag."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(child_nodes(node))
    stmts.append(ast.If(test=ast.Constant(value=False),
                        body=[ast.Expr(value=ast.Yield(value=None))], orelse=[]))


def bare_returns(stmts):
    """An async generator may only ``return`` without a value: ``return None`` compiles the
    same as a bare ``return`` and is a SyntaxError there."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            if isinstance(node.value, ast.Constant) and node.value.value is None:
                node.value = None
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(child_nodes(node))


def strip_trailing_return(stmts):
    """Drop the compiler's implicit ``return None`` at the end, also at the end of the
    branches of a final ``if``, ``match`` or ``try`` (the compiler copies it into each, and
    3.10 copies it with the finally body into each exit of a ``try``); keep written ones."""
    while stmts and isinstance(stmts[-1], ast.Return) and getattr(stmts[-1], "_implicit", False):
        stmts.pop()
    if not stmts:
        return
    last = stmts[-1]
    if not isinstance(last, _STRIPPED_INSIDE):
        return  # (the usual case, one test: a statement nothing is stripped from)
    if isinstance(last, ast.If):
        strip_trailing_return(last.body)
        strip_trailing_return(last.orelse)
        if not last.body:
            last.body.append(ast.Pass())
    elif _MATCH is not None and isinstance(last, _MATCH):
        emptied = None
        for case in last.cases:
            strip_trailing_return(case.body)
            if not case.body:
                case.body.append(ast.Pass())
                emptied = case
        default = last.cases[-1]
        if emptied is default and len(last.cases) > 1 and default.guard is None and \
                isinstance(default.pattern, ast.MatchAs) and \
                default.pattern.pattern is None and default.pattern.name is None:
            # a `case _:` that only held the implicit returns: the match's failure path
            last.cases.pop()
    elif isinstance(last, (ast.With, ast.AsyncWith)) and not PROFILE.setup_blocks:
        # (the implicit return after `with a: with b: ...`; 3.11+ compile a return at the end
        # of a with body as falling out of it; 3.8-3.10 leave through the block stack)
        strip_trailing_return(last.body)
        if not last.body:
            last.body.append(ast.Pass())
    elif isinstance(last, _TRY_NODES):
        for block in [last.body, last.orelse] + [h.body for h in last.handlers]:
            strip_trailing_return(block)
            if not block and block is not last.orelse:
                block.append(ast.Pass())


_TRY_NODES = tuple(getattr(ast, n) for n in ("Try", "TryStar") if hasattr(ast, n))
# the statements strip_trailing_return looks into
_STRIPPED_INSIDE = (ast.If, ast.With, ast.AsyncWith) + _TRY_NODES + \
    ((_MATCH,) if _MATCH is not None else ())
_LEAVING = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def try_finally(body, finalbody, else_after_handlers=False):
    """``try: <body> finally: <finalbody>`` as statements: one ``try`` statement, and the
    compiler's implicit ``return`` when the body ends with one.

    A body that is one ``try``/``except`` becomes a ``try``/``except``/``finally``: the
    compiler nests the two the same way, and only the nested form's second ``try:`` line
    keeps a line-number NOP (3.11+), which a person rarely writes. ``else_after_handlers``
    (``PROFILE.cold_handlers``, 3.12+, where handlers are laid out after the code that
    follows them): a ``try``/``except`` whose handlers all leave, followed by more
    statements without handlers of their own, is the same code as those statements in its
    ``else``, so that form merges too (the idiomatic ``try``/``except``/``else``/``finally``);
    and the implicit ``return None`` that the compiler puts before the normal exit's copy of
    the finally body is the end of the function, after the statement."""
    finalbody = finalbody or [ast.Pass()]
    tail = []
    if else_after_handlers and len(body) > 1 and isinstance(body[-1], ast.Return) and \
            getattr(body[-1], "_implicit", False):
        tail = [body[-1]]
        body = body[:-1]
    first = body[0] if body else None
    if isinstance(first, ast.Try) and not first.finalbody and (
            len(body) == 1 or else_after_handlers and not first.orelse and
            all(handler.body and isinstance(handler.body[-1], _LEAVING)
                for handler in first.handlers) and not _has_handlers(body[1:])):
        if len(body) > 1:
            first.orelse = body[1:]
        first.finalbody = finalbody
        return [first] + tail
    return [ast.Try(body=body + tail or [ast.Pass()], handlers=[], orelse=[],
                    finalbody=finalbody)]


# Nodes whose code has exception handlers of its own (3.12+: inlined comprehensions restore
# their names in one, await and yield from throw into theirs)
_HANDLED = _TRY_NODES + (ast.With, ast.AsyncWith, ast.AsyncFor, ast.ListComp, ast.SetComp,
                         ast.DictComp, ast.Await, ast.YieldFrom)


def _has_handlers(stmts):
    """Whether code compiled from ``stmts`` has exception handlers: the compiler lays those
    out after everything else in the order it emits them, so statements moved from after a
    try's handlers into its else would move their handlers before the try's."""
    return any(isinstance(node, _HANDLED) for stmt in stmts for node in ast.walk(stmt))


def returns_to_else(stmts, in_loop=False):
    """Module and class bodies cannot ``return``: the compiler's duplicated implicit return at
    the end of a branch means "skip the rest", so the rest becomes the branch's ``else`` (for
    a ``try``: the ``else`` of a try whose clauses all end so: ``try: import x / except
    ImportError: pass / else: ...`` at the end of a module, 3.12+). Whether a branch ends with
    a return is read before its own returns are taken out. Inside a loop (``in_loop``) the
    rest of the loop body is no such ``else``: a return there left the loop too."""
    out = []
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If):
            body_returns = _ends_with_return(stmt.body)
            else_returns = _ends_with_return(stmt.orelse)
            stmt.body = returns_to_else(stmt.body, in_loop) or [ast.Pass()]
            stmt.orelse = returns_to_else(stmt.orelse, in_loop)
            rest = [] if in_loop else stmts[k + 1:]
            if body_returns and not else_returns and rest:
                stmt.orelse = returns_to_else(stmt.orelse + rest)
                out.append(stmt)
                return out
            if else_returns and not body_returns and rest:
                stmt.body = returns_to_else(stmt.body + rest)
                out.append(stmt)
                return out
        elif _MATCH is not None and isinstance(stmt, _MATCH):
            for case in stmt.cases:
                case.body = returns_to_else(case.body, in_loop) or [ast.Pass()]
        elif isinstance(stmt, (ast.For, ast.While, ast.With) + _TRY_NODES):
            loop = in_loop or isinstance(stmt, (ast.For, ast.While))
            clauses_return = isinstance(stmt, _TRY_NODES) and bool(stmt.handlers) and \
                not stmt.finalbody and all(_ends_with_return(h.body) for h in stmt.handlers) \
                and not _ends_with_return(stmt.body) and not _ends_with_return(stmt.orelse)
            for field in ("body", "orelse", "finalbody"):
                block = getattr(stmt, field, None)
                if block:
                    setattr(stmt, field, returns_to_else(block, loop) or [ast.Pass()])
            if isinstance(stmt, _TRY_NODES):
                for h in stmt.handlers:
                    h.body = returns_to_else(h.body, loop) or [ast.Pass()]
                rest = [] if in_loop else stmts[k + 1:]
                if clauses_return and rest:
                    stmt.orelse = returns_to_else(stmt.orelse + rest)
                    out.append(stmt)
                    return out
        elif isinstance(stmt, ast.Return):
            continue
        out.append(stmt)
    return out


def else_after_implicit_return(stmts):
    """3.12+ functions: ``if c: a`` whose body ends with a copy of the implicit ``return
    None`` (line-less, or with a line already seen: ``_implicit``), followed by more code,
    was ``if c: a / else: rest``: without an ``else`` the body would fall into the rest, not
    jump to the function's end. Read as a written ``return`` the rest would lose the block
    boundary the ``else`` left before the implicit return, and the compiler would copy the
    join of a conditional expression in it (``self.write(a if x else b)``) into its
    branches. ``stmts`` ends the function; so does each ``else`` made here."""
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) > 1 and \
                k + 1 < len(stmts) and isinstance(stmt.body[-1], ast.Return) and \
                getattr(stmt.body[-1], "_implicit", False):
            stmt.orelse = stmts[k + 1:]
            del stmts[k + 1:]
            else_after_implicit_return(stmt.orelse)
            return


def _ends_with_return(body):
    return bool(body) and isinstance(body[-1], ast.Return) and (
        body[-1].value is None or (isinstance(body[-1].value, ast.Constant) and body[-1].value.value is None))


def docstring_from_assign(stmts):
    if stmts and isinstance(stmts[0], ast.Assign) and len(stmts[0].targets) == 1:
        t = stmts[0].targets[0]
        if isinstance(t, ast.Name) and t.id == "__doc__" and isinstance(stmts[0].value, ast.Constant) \
                and isinstance(stmts[0].value.value, str):
            stmts[0] = ast.Expr(value=stmts[0].value)


def class_body(stmts):
    body = list(stmts)
    # prologue: __module__ = __name__; __qualname__ = '...'; [__firstlineno__ = n];
    # [__type_params__ = .type_params] (a generic class, type_params.py)
    while body and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 and \
            isinstance(body[0].targets[0], ast.Name) and (
                body[0].targets[0].id in ("__module__", "__qualname__", "__firstlineno__") or
                (body[0].targets[0].id == "__type_params__" and
                 getattr(body[0].value, "id", None) == ".type_params")):
        body.pop(0)
    docstring_from_assign(body)
    _drop_epilogue_copies(body)
    while body and (isinstance(body[-1], ast.Return) or _is_epilogue(body[-1])):
        body.pop()
    return returns_to_else(body)


_CLASS_EPILOGUE = ("__classcell__", "__static_attributes__", "__classdictcell__")


def _is_epilogue(stmt):
    """``__static_attributes__ = ...``, ``__classcell__ = __class__``, ``__classdictcell__ =
    ...``: the compiler's end of a class body."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in _CLASS_EPILOGUE


def _drop_epilogue_copies(stmts):
    """The epilogue (``[__static_attributes__ = ...]; [__classcell__ = __class__]; return``)
    is a small exit block: 3.12+ copy it into each branch that jumps to it (flowgraph.c
    inlines small or line-less exit blocks), so a branch of an ``if`` can end with the whole
    epilogue. Keep the copied ``return`` (returns_to_else reads it) and drop the stores
    before it, at every nesting level of the class body (not inside its functions)."""
    kept = []
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            while kept and _is_epilogue(kept[-1]):
                kept.pop()
            # (`return (__classcell__ := ...)` where methods use __class__)
            stmt = ast.Return(value=None)
        kept.append(stmt)
    stmts[:] = kept
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if block:
                _drop_epilogue_copies(block)
        for part in list(getattr(stmt, "handlers", ())) + list(getattr(stmt, "cases", ())):
            _drop_epilogue_copies(part.body)


def _number_statements(stmts):
    """``ast.unparse`` looks up type comments by ``lineno`` on statements (only there): give
    statements one, without the cost of ``fix_missing_locations`` on every expression."""
    for stmt in stmts:
        stmt.lineno = 0
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if block:
                _number_statements(block)
        for handler in getattr(stmt, "handlers", ()):
            _number_statements(handler.body)
        for case in getattr(stmt, "cases", ()):
            _number_statements(case.body)


def unparse(stmts):
    if unparse_statements is not None:
        return unparse_statements(stmts)
    module = ast.Module(body=stmts, type_ignores=[])
    if NEEDS_LINENO:
        _number_statements(stmts)
    return to_source(module)


def reindent(source, indent):
    """Re-indent ``ast.unparse`` output (4 spaces a level) with ``indent``, strings untouched."""
    if indent == "    ":
        return source
    lines = source.splitlines(True)
    in_string = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.STRING and tok.start[0] != tok.end[0]:
                in_string.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return source
    out = []
    for number, line in enumerate(lines, 1):
        if number in in_string:
            out.append(line)
            continue
        stripped = line.lstrip(" ")
        level = (len(line) - len(stripped)) // 4
        out.append(indent * level + stripped)
    return "".join(out)


def unmangle_private_names(stmts):
    """Write private names inside a class as their source spelled them: ``self.__data``
    rather than ``self._Printer__data``.

    The compiler mangles a ``__name`` used inside class ``C`` (names, attributes, parameters;
    not keyword arguments of calls) to ``_C__name``, and the bytecode keeps only the mangled
    form. Both spellings compile to the same instructions, but from 3.13 a class body records
    the attribute names its methods assign on ``self`` as written (``__static_attributes__``),
    and the mangled spelling is also not what anyone wrote. Each class's own prefix applies to
    its body and the functions in it; a nested class body has its own."""
    todo = [(node, None) for node in stmts]
    while todo:
        node, prefix = todo.pop()
        if isinstance(node, ast.ClassDef):
            todo.extend((child, prefix) for child in node.bases + node.keywords +
                        node.decorator_list)
            inner = "_" + node.name.lstrip("_")
            inner = None if inner == "_" else inner
            todo.extend((child, inner) for child in node.body)
            continue
        if prefix is None:
            # outside a class nothing is renamed, and classes are statements: look only
            # into statement lists (a function's body too)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                todo.extend((child, None) for child in node.body)
            elif isinstance(node, ast.stmt):
                for block in statement_blocks(node):
                    todo.extend((child, None) for child in block)
            continue
        if prefix is not None:
            if isinstance(node, ast.Name):
                node.id = _unmangled(node.id, prefix)
            elif isinstance(node, ast.Attribute):
                node.attr = _unmangled(node.attr, prefix)
            elif isinstance(node, ast.arg):
                node.arg = _unmangled(node.arg, prefix)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                node.name = _unmangled(node.name, prefix)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                node.names = [_unmangled(n, prefix) for n in node.names]
        todo.extend((child, prefix) for child in child_nodes(node))


def _unmangled(name, prefix):
    """``__name`` for ``<prefix>__name`` where the compiler would mangle ``__name`` so."""
    if not name.startswith(prefix) or not name.startswith("__", len(prefix)):
        return name
    rest = name[len(prefix):]
    if len(rest) <= 2 or rest.endswith("__") or "." in rest:
        return name
    return rest
