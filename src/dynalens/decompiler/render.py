"""One code object -> source text.

``decompile_body`` turns a code object into the statements of its body; ``decompile_code`` adds
what makes the text compile back to the same code object on its own: the ``def``/``class``/
``lambda`` header, and enclosing functions that own the free variables of a closure (named after
the code object's ``co_qualname`` so the recompiled object has the same qualified name).
"""

import ast

from .definitions import (COMPREHENSIONS, CO_ASYNC_GENERATOR, CO_COROUTINE, CO_GENERATOR,
                          arguments_of, is_lazy_value, lazy_value)
from . import choices, definitions, type_params
from .annotate import CO_FUTURE_ANNOTATIONS, annotate_owner, place_annotations
from .conditional_returns import fold_conditional_returns
from .loop_exits import breaks_for_copied_exits, else_for_threaded_continues
from .same_line import may_merge, merge_with_items
from .nop_lines import debug_blocks
from .emit import (bare_returns, class_body, code_docstring, docstring_from_assign,
                   else_after_implicit_return, is_docstring, keep_generator, reindent,
                   returns_to_else, strip_trailing_return, unmangle_private_names, unparse)
from .errors import DecompilationError
from .marking import check, finish
from .verify import compiled_source, verdict_key
from .signature import apply_signature, mark_signature
from .expressions import FunctionValue, name
from .block_order import restore_handler_order, source_order
from .cold_blocks import exception_only_blocks
from .generated_layout import move_jumped_over_handlers
from .instructions import exception_entries, normalize, raw_instructions, shared_disassembly
from .legacy_structure import (compound_ends_before_else, else_for_dead_return,
                               ends_with_dead_return)
from .profile import PROFILE
from . import recognisers  # noqa: F401 (fills the registry: registry.py)
from .statements import Context, StatementWalker

CO_OPTIMIZED = 0x01
# 3.12+ definitions carry type parameters (``def f[T]``); the nodes are built without them
_TYPE_PARAMS = hasattr(ast, "TypeAlias")


class CodeWalker(StatementWalker):
    """The walker of one code object: the walk state and the walker core (statements.py) set up
    for the code, its kind and the session; what it recognises comes from the registry
    (registry.py, filled by recognisers.py)."""

    def __init__(self, code, kind, session, relayout=None):
        instrs, offset_to_index = normalize(code)
        entries = exception_entries(code, offset_to_index)
        self.relaid = False
        self.source_order = False  # 3.12+ handlers put back after their statements
        if relayout is not None:
            moved = relayout(instrs, entries)
            self.relaid = moved[0] is not instrs
            instrs, entries = moved
        elif entries and PROFILE.cold_handlers:
            # the default: each handler back at the end of its statement (block_order.py)
            # when every one goes back, else the compiled layout (cold_blocks.py compensates);
            # a choice point (choices.SOURCE_BLOCK_ORDER): a retry of code that is not exact
            # reads the other one (the compiled layout, or the handlers that can go back)
            # (asked only where something moves; the restored order is then built out of
            # these instructions, which nothing else reads)
            restored, moved, _ = source_order(
                instrs, entries, take=lambda every: every == (
                    session.decisions is None or
                    not session.decisions.choose(code, choices.SOURCE_BLOCK_ORDER, 0)))
            if restored is not instrs:
                instrs, entries = restored, moved
                self.source_order = True
        StatementWalker.__init__(self, code, instrs, entries,
                                 lambda c, k: decompile_body(c, k, session))
        if PROFILE.inline_comprehensions:  # (3.12+: before, neither block is compiled)
            self.cleanup_starts.update(exception_only_blocks(instrs, entries))
        self.kind = kind
        self.session = session
        self.decisions = session.decisions
        self.imported_names = session.imported_names
        self.module_names = session.module_names


def code_kind(code):
    if code.co_name == "<module>":
        return "module"
    if code.co_name in COMPREHENSIONS:
        return "comprehension"
    if code.co_name == "<lambda>":
        return "lambda"
    if not code.co_flags & CO_OPTIMIZED:
        return "class"
    return "function"


class Session(object):
    """What the decompilation of one code object and its nested ones learns along the way."""

    def __init__(self, temp_prefix="__temp_", strict=False):
        self.imported_names = set()
        self.module_names = set()
        self.temp_prefix = temp_prefix
        self.temp_count = 0
        self.strict = strict  # a nested function that fails fails the whole (no stub)
        self.fallbacks = {}  # id(code) -> fallback.Fallback, for stubs (see fallback.py)
        self.validate = False  # render each nested body as it is made (fallback.check_renders)
        self.generated = False  # no source compiles to it (Dynamo's): verify by dataflow
        self.decisions = None  # choices.Decisions: readings to take at choice points


def compiled_layout(instrs, entries):
    """The layout as compiled, in new lists (so the walker counts it as another layout)."""
    return list(instrs), list(entries)


def _walk_relaid(code, kind, session, walker, taken, error):
    """(walker, statements) of the first other layout of the same program whose walk
    succeeds, tried when the walk of the first layout fails; ``error`` when none applies or
    none succeeds:

    - 3.12+ code read with its handlers put back (block_order.py) is read as compiled, with
      cold_blocks.py's compensation;
    - generated code may jump over a handler laid out mid-code (generated_layout.py);
    - 3.12+ handlers laid out after the code that follows them, those that can go back put
      back at the end of their statements, the others left at the end.

    ``taken`` is what the session held before the first walk (``_session_state``): that
    walk was a trial, and its temporaries and stubs go before another layout is read (the
    first walker itself is dropped, so nothing else of its state needs putting back)."""
    layouts = [move_jumped_over_handlers, restore_handler_order]
    if walker.source_order:
        layouts = [compiled_layout, move_jumped_over_handlers]
    for relayout in layouts:
        relaid = CodeWalker(code, kind, session, relayout=relayout)
        if not relaid.relaid:
            continue
        _restore_session(session, taken)
        try:
            return relaid, relaid.walk(0, relaid.n, [], Context())[0]
        except DecompilationError:
            pass
    raise error


def _session_state(session):
    """What a walk takes from the session as it goes and a failed first walk must give back
    (its part of statements.WalkState: the walker is replaced, the session goes on)."""
    return session.temp_count, dict(session.fallbacks)


def _restore_session(session, taken):
    temp_count, fallbacks = taken
    session.temp_count = temp_count
    if session.fallbacks != fallbacks:
        session.fallbacks.clear()
        session.fallbacks.update(fallbacks)


def decompile_body(code, kind=None, session=None):
    """The body of ``code`` as a list of ``ast.stmt``."""
    kind = kind or code_kind(code)
    session = session or Session()
    walker = CodeWalker(code, kind, session)
    taken = _session_state(session)
    try:
        stmts, _ = walker.walk(0, walker.n, [], Context())
    except DecompilationError as error:
        walker, stmts = _walk_relaid(code, kind, session, walker, taken, error)
    if kind == "function":
        walker.end_with_detached_exit(stmts)
    if (PROFILE.return_const or PROFILE.implicit_return_at_end_only) and \
            kind in ("function", "lambda"):
        fold_conditional_returns(stmts, PROFILE.return_const)
    if PROFILE.keeps_dead_code and kind == "function":
        if ends_with_dead_return(code) and not choices.choose(
                walker, choices.ELSE_FOR_DEAD_RETURN, walker.instrs[-1].offset):
            stmts = else_for_dead_return(stmts)
        compound_ends_before_else(stmts, walker)
    if PROFILE.lined_exit_copies and kind == "function" and not session.generated:
        breaks_for_copied_exits(stmts, code)  # (generated code has no layout to keep)
    if PROFILE.expanded_backward_jumps and kind == "function" and not session.generated:
        else_for_threaded_continues(stmts)
    if PROFILE.lined_exit_copies and kind == "function" and not session.generated:
        else_after_implicit_return(stmts)
    if not session.generated:
        if may_merge(code):
            merge_with_items(stmts, PROFILE.cold_handlers and kind == "function")
        if kind == "function":
            debug_blocks(stmts, code)
    if kind in ("function", "lambda", "comprehension"):
        strip_trailing_return(stmts)
    if kind == "function" and code.co_flags & (CO_GENERATOR | CO_ASYNC_GENERATOR):
        keep_generator(stmts)
    if kind == "function" and code.co_flags & CO_ASYNC_GENERATOR:
        bare_returns(stmts)
    if kind == "module":
        strip_trailing_return(stmts)
        stmts = returns_to_else(stmts)
        docstring_from_assign(stmts)
    elif kind == "class":
        stmts = class_body(stmts)
    if walker.annotations_found:
        stmts = place_annotations(stmts, walker.annotations_found)
    elif kind == "function":
        doc = code_docstring(code)
        if isinstance(doc, str):
            stmts.insert(0, ast.Expr(value=ast.Constant(value=doc)))
    decls = []
    if kind in ("comprehension", "lambda"):
        return stmts  # walrus targets bind in the enclosing scope: no declaration possible
    if walker.globals_declared:
        decls.append(ast.Global(names=sorted(walker.globals_declared)))
    nonlocals = set(walker.nonlocals_declared)
    if kind == "function":
        nonlocals.update(_unused_free_variables(code, walker))
    if nonlocals:
        decls.append(ast.Nonlocal(names=sorted(nonlocals)))
    if decls:
        at = 1 if stmts and is_docstring(stmts[0]) else 0
        while at < len(stmts) and isinstance(stmts[at], ast.ImportFrom) and \
                stmts[at].module == "__future__":
            at += 1  # (a module's names made global by a function: after these, or no compile)
        stmts[at:at] = decls
    return stmts


_CELL_OPS = frozenset(["LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF", "LOAD_CLOSURE",
                       "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"])


def _unused_free_variables(code, walker):
    """Free variables the code never touches (generated code passes cells it does not use):
    only a ``nonlocal`` declaration makes the recompiled function capture them."""
    if not code.co_freevars:
        return []
    used = set(ins.argval for ins in walker.instrs if ins.op in _CELL_OPS)
    return [v for v in code.co_freevars if v not in used and v not in _CLASS_CELLS]


# -- standalone rendering ----------------------------------------------------------------------

def definition_for(code, fname=None, session=None):
    """A statement that defines ``code`` when compiled (def, class or an expression)."""
    return _definition(code, code_kind(code), fname, session or Session())


def _definition(code, kind, fname, session):
    """definition_for, ``code``'s kind given."""
    if kind == "module":
        return decompile_body(code, kind, session)
    if kind == "class":
        body = decompile_body(code, kind, session)
        node = ast.ClassDef(name=fname or code.co_name, bases=[], keywords=[], body=body or [ast.Pass()],
                            decorator_list=[])
        if _TYPE_PARAMS:
            node.type_params = (type_params.standalone_class_params(code)
                                if type_params.TYPE_PARAMS.id in code.co_freevars else [])
        return [node]
    if kind == "function" and type_params.is_generic_scope(code):  # 3.12+ `def f[T]` etc.
        return _generic_definition(code, session)
    if kind == "function" and is_lazy_value(code):  # 3.14+: the value of `type X = value`
        value = lazy_value(code, lambda c, k: decompile_body(c, k, session))
        if value is not None:
            return [ast.TypeAlias(name=ast.Name(id=fname or code.co_name, ctx=ast.Store()),
                                  type_params=[], value=value)]
    if kind == "function":
        body = decompile_body(code, kind, session)
        if code.co_name == "__annotate__" and PROFILE.annotate_functions:
            owner = annotate_owner(body, code, alone=True)
            if owner is not None:
                return owner
        is_async = bool(code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR))
        node_type = ast.AsyncFunctionDef if is_async else ast.FunctionDef
        # (fields by position, ast's _fields order: (name, args, body, decorator_list,
        # returns, type_comment), the same on every version; a third of the keywords' cost)
        node = node_type(fname or code.co_name, arguments_of(code), body or [ast.Pass()],
                         [], None, None)
        if _TYPE_PARAMS:
            node.type_params = []
        return [node]
    # lambdas and comprehensions are expressions: build them through the walker that would
    # have created them, by decompiling a tiny synthetic call site.
    walker = CodeWalker.__new__(CodeWalker)
    walker.code = code
    walker.kind = "function"
    walker.decompile_nested = lambda c, k: decompile_body(c, k, session)
    walker.imported_names = session.imported_names
    walker.module_names = session.module_names
    fv = FunctionValue(code)
    if kind == "lambda":
        expr = definitions.lambda_expr(walker, fv, None)
    else:
        expr = definitions.comprehension(walker, fv, name(_iterable_name(code)), None)
    return [ast.Expr(value=expr)]


def _generic_definition(code, session):
    """The ``def``/``class``/``type`` statement whose annotation scope is ``code``."""
    walker = CodeWalker(code, "function", session)
    args = type_params.standalone_arguments(code, walker.instrs)
    if args is None:
        raise DecompilationError("unrecognised annotation scope parameters", code)
    fv = FunctionValue(code)
    if code.co_freevars:  # the cells come back from wrap_for_closure
        fv.closure = ast.Tuple(elts=[], ctx=ast.Load())
    value = type_params.read_scope(walker, fv, args, None)
    out = []
    defined = code.co_name[len(type_params.PREFIX):-1]
    walker.emit_assign(ast.Name(id=defined, ctx=ast.Store()), value, out, None)
    if len(out) != 1:
        raise DecompilationError("unrecognised annotation scope", code)
    return out


def _iterable_name(code):
    return "__iterable"


def _legacy_qualname(code):
    """Before 3.11 a code object does not store its qualified name, but a class body's
    prologue does (``LOAD_CONST 'Outer.Inner'; STORE_NAME __qualname__``), and so does every
    ``MAKE_FUNCTION`` inside a function for the function it makes (``'outer.<locals>.f'``, in
    a comprehension ``'outer.<locals>.<listcomp>.<genexpr>'``)."""
    instructions = raw_instructions(code)
    if not code.co_flags & CO_OPTIMIZED and not code.co_name.startswith("<"):
        for k, ins in enumerate(instructions):
            if ins.opname == "STORE_NAME" and ins.argval == "__qualname__":
                if k and instructions[k - 1].opname == "LOAD_CONST" and \
                        isinstance(instructions[k - 1].argval, str):
                    return instructions[k - 1].argval
                break
        return code.co_name
    for k in range(2, len(instructions)):
        if instructions[k].opname != "MAKE_FUNCTION":
            continue
        made, name = instructions[k - 2].argval, instructions[k - 1].argval
        if hasattr(made, "co_name") and \
                isinstance(name, str) and name.endswith("." + made.co_name):
            outer = name[:-len(made.co_name) - 1]
            if outer.endswith(".<locals>"):
                outer = outer[:-len(".<locals>")]
            if outer.rsplit(".", 1)[-1] == code.co_name:
                return outer
    return code.co_name


def _qualname_parents(code):
    qualname = getattr(code, "co_qualname", None) or _legacy_qualname(code)
    parts = qualname.split(".")
    parents = []
    for k, part in enumerate(parts[:-1]):
        if part == "<locals>":
            continue
        is_function = k + 1 < len(parts) - 0 and k + 1 < len(parts) and parts[k + 1] == "<locals>"
        parents.append((part, is_function))
    if not hasattr(code, "co_qualname") and "__class__" in code.co_freevars:
        # before 3.11 a code object does not say which class holds it; any class gives a
        # method that uses super() / __class__ its implicit __class__ cell back
        parents.insert(0, ("_Enclosing", False))
    return parents


def wrap_for_closure(code, stmts):
    """Enclose ``stmts`` in the functions, classes, lambdas or comprehensions its qualified name
    says it lives in, so free variables are cells again and ``co_qualname`` comes back the same.
    The nearest enclosing function (or lambda, or comprehension) owns the cells."""
    return _wrap_for_closure(code, code_kind(code), stmts)


def _wrap_for_closure(code, kind, stmts):
    """wrap_for_closure, ``code``'s kind given."""
    if not code.co_freevars and kind in ("function", "lambda"):
        return stmts  # (the usual case, what the first test below finds, asked first)
    # cells the compiler makes for a class body: the class statement makes them again
    parents = None
    class_cells = _CLASS_CELLS
    if _CLASS_CELLS.intersection(code.co_freevars):
        parents = _qualname_parents(code)
        if parents and all(is_function for _, is_function in parents):
            # with only functions around it, `__class__` is a variable of one of them (a
            # parameter so named: dataclasses._make_annotate_function)
            class_cells = ()
    cells = [v for v in code.co_freevars if v not in class_cells]
    if type_params.TYPE_PARAMS.id in cells:  # a generic class body: its brackets make these
        made = set(p.name for p in type_params.standalone_class_params(code))
        cells = [v for v in cells if v != type_params.TYPE_PARAMS.id and v not in made]
    if not cells and kind in ("function", "lambda") and not _CLASS_CELLS.intersection(
            code.co_freevars):
        # Nothing to capture: a top-level def of its own name (``exec(src, ns); ns[name]``
        # finds it), which verifies all the same (qualified names are matched by their tail).
        # (Asked first: the usual case, and before 3.11 the parents are read from bytecode.)
        return stmts
    if parents is None:
        parents = _qualname_parents(code)
    # an asynchronous comprehension (before 3.12) is valid only inside an `async def`
    asynchronous = kind == "comprehension" and bool(code.co_flags & CO_COROUTINE)
    if not parents and not cells and not asynchronous:
        return stmts
    if not parents:
        parents = [("__closure__", True)]
    body = stmts
    for pname, is_function in reversed(parents):
        if pname.startswith("<"):
            if len(body) != 1 or not isinstance(body[0], ast.Expr):
                raise DecompilationError("cannot rebuild the enclosing %s of %s" % (pname, code.co_name), code)
            body = [ast.Expr(value=_expression_parent(pname, body[0].value, cells))]
            cells = []
        elif is_function:
            prefix = []
            if cells:
                prefix = [ast.Assign(targets=[name(v, ast.Store()) for v in cells],
                                     value=ast.Constant(value=None), lineno=0)]
                cells = []
            body = [_function(pname, prefix + body, asynchronous)]
            asynchronous = False
        else:
            if kind == "function" and not _CLASS_CELLS.intersection(code.co_freevars):
                continue  # a method needs its class only for the class cells
            if _unmangled_private_names(code):
                # generated code (Dynamo's __compiled_fn_*) uses private-looking names the
                # class would mangle; a class named only with underscores mangles nothing
                pname = "_"
            node = ast.ClassDef(name=pname, bases=[], keywords=[], body=body, decorator_list=[])
            if _TYPE_PARAMS:
                node.type_params = []
                if cells and "__classdict__" in code.co_freevars and \
                        not any(is_function for _, is_function in parents):
                    # an annotation scope in a class (3.12+: `def m[U]` in `class C[T]`) that
                    # reads names no function around it holds: the class's type parameters
                    node.type_params = [ast.TypeVar(name=v) for v in cells]
                    cells = []
            body = [node]
    if cells or asynchronous:
        prefix = [ast.Assign(targets=[name(v, ast.Store()) for v in cells],
                             value=ast.Constant(value=None), lineno=0)] if cells else []
        body = [_function("__closure__", prefix + body, asynchronous)]
    return body


_CLASS_CELLS = frozenset(["__class__", "__classdict__", "__conditional_annotations__"])


def _unmangled_private_names(code):
    """Whether ``code`` (or code nested in it) uses a ``__name`` that a class would mangle."""
    for name_ in code.co_names + code.co_varnames + code.co_freevars + code.co_cellvars:
        if name_.startswith("__") and not name_.endswith("__"):
            return True
    return any(_unmangled_private_names(c) for c in code.co_consts if hasattr(c, "co_code"))


def _function(fname, body, asynchronous=False):
    node_type = ast.AsyncFunctionDef if asynchronous else ast.FunctionDef
    node = node_type(name=fname, args=arguments_of_empty(), body=body, decorator_list=[],
                     returns=None, type_comment=None)
    if _TYPE_PARAMS:
        node.type_params = []
    return node


def _expression_parent(pname, expr, cells):
    """A lambda or comprehension around ``expr`` whose parameters / loop variables are
    ``cells``."""
    if pname == "<lambda>":
        args = arguments_of_empty()
        args.args = [ast.arg(arg=v, annotation=None, type_comment=None) for v in cells]
        return ast.Lambda(args=args, body=expr)
    if not cells:
        target = name("_", ast.Store())
    elif len(cells) == 1:
        target = name(cells[0], ast.Store())
    else:
        target = ast.Tuple(elts=[name(v, ast.Store()) for v in cells], ctx=ast.Store())
    generators = [ast.comprehension(target=target, iter=name("__iterable"), ifs=[], is_async=0)]
    if pname == "<listcomp>":
        return ast.ListComp(elt=expr, generators=generators)
    if pname == "<setcomp>":
        return ast.SetComp(elt=expr, generators=generators)
    if pname == "<dictcomp>":
        return ast.DictComp(key=expr, value=ast.Constant(value=None), generators=generators)
    return ast.GeneratorExp(elt=expr, generators=generators)


def _module_imports(names, used=()):
    """``if False: import x`` for names the code treats as module-level imports (and ``if
    False: super`` for names the module's top scope uses, profile.super_attr_calls): never
    runs, but puts the name in the symbol table the way the enclosing module had it."""
    if not names and not used:
        return []
    body = [ast.Import(names=[ast.alias(name=n, asname=None)]) for n in sorted(names)]
    body += [ast.Expr(value=ast.Name(id=n, ctx=ast.Load())) for n in sorted(used)]
    return [ast.If(test=ast.Constant(value=False), body=body, orelse=[])]


def arguments_of_empty():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])


def decompile_code(code, indent="    ", temp_prefix="__temp_", name=None, strict=False,
                   function=None, generated=False):
    """Source text that compiles back to ``code`` (see module docstring), verified: a code
    object in it that does not recompile exactly is marked (marking.py), a nested function that
    cannot be decompiled is a stub that gets its original code back (fallback.py); with
    ``strict`` either raises DecompilationError. ``function``, the function object of
    ``code`` when there is one, gives the ``def`` its defaults and annotations (signature.py).
    ``generated`` says no source compiles to ``code`` (Dynamo's): the dataflow check decides."""
    if not hasattr(code, "co_code"):
        raise TypeError("decompile_code() needs a code object, got %s" % type(code).__name__)
    if isinstance(indent, int):
        indent = " " * indent
    with shared_disassembly():
        return _decompile_code(code, indent, temp_prefix, name, strict, function, generated)


def _as_named(code, name):
    """``code`` as the renamed ``def`` written for it is expected to recompile: a new name
    (``decompile(code, name=...)``, the lens's ``__transformed_code_<n>_for_<fn>``) changes the
    qualified name the verifier looks the recompiled code object up by, nothing else."""
    if not name or name == code.co_name:
        return code
    if not hasattr(code, "co_qualname"):
        return code.replace(co_name=name)
    parent = code.co_qualname.rpartition(".")[0]
    return code.replace(co_name=name, co_qualname=parent + "." + name if parent else name)


def _decompile_code(code, indent, temp_prefix, name, strict, function, generated):
    best = _best_attempt(code, indent, temp_prefix, name, strict, function, generated)
    if best.error is not None:
        raise best.error
    # (the statements stay alive until the text is marked: marshal flags the objects they
    # share with a stub's code object, as it did when finish ran beside them)
    session, stmts, text, notes, checked = best.result
    text = finish(_as_named(code, name), text, session, indent, strict, checked)
    if notes:
        text = mark_signature(text, notes, name or code.co_name, strict, code)
    return text


def _best_attempt(code, indent, temp_prefix, name, strict, function, generated):
    """The rendering of ``code`` to finish from (choices.Attempt): the first one, or, when
    that is not exact, the best the choice points allow (choices.retry)."""
    named = _as_named(code, name)
    # _verification_key -> what verifying an attempt not exact found (choices.Attempt's
    # failed, codes, reach, at, and check's answer): a retry's other reading often renders
    # the text of an earlier attempt, and verification would find what it found then (an
    # exact attempt ends the retry: none is kept)
    verified = {}
    # verify.verdict_key of the compiled text -> the same, for renderings without stubs: most
    # of a retry's other readings render another text that compiles to the bytecode of an
    # earlier attempt but for line numbers (an `else:` around what follows an `if` that
    # cannot fall through compiles as without it), and verification would find the same
    # code objects not exact, with the same first differences. Such an attempt is never kept
    # (choices.retry keeps only strictly better ones), so the earlier check's answer it
    # carries, whose lines are the earlier text's, never marks an output.
    compiled_like = {}

    def attempt(decisions):
        """One rendering with ``decisions``' readings, verified."""
        try:
            session, stmts, source, notes = _rendered(code, name, temp_prefix, strict,
                                                      function, generated, decisions)
        except DecompilationError as exc:
            return choices.Attempt(decisions, None, error=exc)
        text = reindent(source, indent) + "\n"
        seen = verified.get(_verification_key(text, session)) if verified else None
        module = shape = None
        if seen is None:
            module = compiled_source(text, named)
            if compiled_like and module is not None and not session.fallbacks:
                shape = verdict_key(module)
                seen = compiled_like.get(shape)
        if seen is not None:
            failed, codes, reach, at, checked = seen
            return choices.Attempt(decisions, failed, (session, stmts, text, notes, checked),
                                   codes=codes, reach=reach, at=at)
        checked = check(named, text, session, module)
        if not checked[0] and not session.fallbacks:
            # exact, no stub (the usual case): what the lines below make, made directly
            return choices.Attempt(decisions, frozenset(), (session, stmts, text, notes, checked))
        failed = dict((id(d.code), d.code) for d in checked[0] if d.code is not named)
        failed.update((key, item.code) for key, item in session.fallbacks.items())
        if any(d.code is named for d in checked[0]):
            failed[id(code)] = code
        reach = dict((id(code) if d.code is named else id(d.code), d.reach)
                     for d in checked[0] if d.reach is not None)
        at = dict((id(code) if d.code is named else id(d.code), d.at)
                  for d in checked[0] if d.at is not None)
        found = verified[_verification_key(text, session)] = (frozenset(failed), failed,
                                                              reach, at, checked)
        if module is not None and not session.fallbacks:
            compiled_like[shape if shape is not None else verdict_key(module)] = found
        return choices.Attempt(decisions, found[0], (session, stmts, text, notes, checked),
                               codes=failed, reach=reach, at=at)

    def alone(nested):
        """A nested code object that failed, decompiled on its own (a cheaper search)."""
        return _best_attempt(nested, indent, temp_prefix, None, strict, None, generated)

    first = attempt(choices.Decisions())
    if first.failed is not None and not first.failed:
        return first
    # not exact: other readings where the walk met a choice (choices.py)
    return choices.retry(attempt, first, alone, id(code))


def _verification_key(text, session):
    """What verifying a rendering reads (marking.check): its text and its stubs."""
    return text, frozenset(session.fallbacks)


def _rendered(code, name, temp_prefix, strict, function, generated, decisions):
    """(session, statements, text, signature notes) for ``code``, before verification; a
    failure of the walk is a DecompilationError."""
    try:
        try:
            session, stmts, source, notes = _render(code, name, temp_prefix, strict, function,
                                                    False, generated, decisions)
        except Exception as exc:
            if strict or isinstance(exc, (DecompilationError, RecursionError)):
                raise
            # Rendering the text failed (an expression the walker left unfinished): once more,
            # rendering each nested body as it is made, so that the function at fault becomes
            # a stub and the rest is kept.
            session, stmts, source, notes = _render(code, name, temp_prefix, strict, function,
                                                    True, generated, decisions)
    except DecompilationError:
        raise
    except RecursionError as exc:
        raise DecompilationError("nesting too deep to decompile", code) from exc
    except Exception as exc:
        raise DecompilationError("internal error: %s: %s" % (type(exc).__name__, exc), code) from exc
    return session, stmts, source, notes


def _render(code, name, temp_prefix, strict, function, validate, generated, decisions=None):
    """(session, statements, text, signature notes) for ``code``, before verification."""
    session = Session(temp_prefix, strict)
    session.decisions = decisions
    session.validate = validate
    session.generated = generated
    kind = code_kind(code)
    stmts = _definition(code, kind, name, session)
    notes = []
    if function is not None:
        notes = apply_signature(stmts, function, name or code.co_name)
    if kind != "module":
        stmts = _wrap_for_closure(code, kind, stmts)
        stmts = _module_imports(session.imported_names, session.module_names) + stmts
        if code.co_flags & CO_FUTURE_ANNOTATIONS:
            # annotations were compiled as strings: only this import does that again
            stmts.insert(0, ast.ImportFrom(module="__future__", level=0, names=[
                ast.alias(name="annotations", asname=None)]))
    if _may_hold_mangled_names(code):
        unmangle_private_names(stmts)
    return session, stmts, unparse(stmts), notes


def _may_hold_mangled_names(code):
    """Whether ``code`` or code nested in it names anything the compiler may have mangled
    (``_C__x``): most code does not, and then the output needs no walk for them. A mangled
    name is ``_`` + the class name without its leading underscores + ``__name``, and names
    ending in ``__`` are never mangled, so dunder names (``__init__``) do not count.
    (Most code has no ``__`` in any name: one test on the names joined rules that out before
    the names are tested one by one; a space is in no identifier, so joining makes no ``__``.)"""
    names = code.co_names + code.co_varnames + code.co_freevars + code.co_cellvars
    if "__" in " ".join(names):
        for name_ in names:
            if "__" in name_ and name_[:1] == "_" and name_[1:2] != "_" and \
                    "__" in name_[2:] and not name_.endswith("__"):
                return True
    for const in code.co_consts:  # (a loop: a generator expression is a call per constant)
        if hasattr(const, "co_code") and _may_hold_mangled_names(const):
            return True
    return False
