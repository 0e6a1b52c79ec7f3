"""The symbolic stack machine: normalized instructions -> ``ast.expr`` nodes.

Each handler mirrors what the interpreter does to its value stack, but pushes expression trees
instead of values.  Values the interpreter keeps on the stack for its own bookkeeping (the
iterator of a ``for`` loop, a context manager's exit, the exception being handled, a NULL before
a callable) are pushed as *markers*: subclasses of :class:`Marker`.  A marker popped by an
instruction that would otherwise make a statement (``POP_TOP`` of a ``for`` iterator before a
``return``, say) makes nothing, which is how the unwinding code CPython emits for ``return``,
``break`` and ``continue`` inside loops, ``with`` and ``except`` disappears without a pattern of
its own.
"""

import ast
import copy
import math

from .errors import DecompilationError
from .instructions import NULL_FIRST
from .profile import PROFILE
from .registry import ENTRY


class Marker(object):
    """A stack value that is not a Python expression the user wrote."""

    def __repr__(self):
        return "<%s>" % type(self).__name__


class Null(Marker):
    """The NULL that precedes a callable (3.11+) or follows it (3.13+)."""


class IterMarker(Marker):
    """The iterator a ``for`` loop keeps on the stack."""

    def __init__(self, iterable):
        self.iterable = iterable


class IterIndex(Marker):
    """3.15+: the second stack slot of a for loop's iterator (GET_ITER pushes two)."""


# how many stack slots a for loop's iterator takes
ITER_SLOTS = 2 if PROFILE.two_slot_iterators else 1


class LoopItem(Marker):
    """The value ``FOR_ITER`` pushes: what the loop target is assigned."""


class WithExit(Marker):
    """The bound ``__exit__`` that ``BEFORE_WITH`` leaves below the entered value."""

    def __init__(self, manager, is_async=False):
        self.manager = manager
        self.is_async = is_async


class WithEnter(Marker):
    """The value of ``__enter__()``: stored to the ``as`` target, or popped."""

    def __init__(self, exit_marker):
        self.exit_marker = exit_marker


class ExitCallResult(Marker):
    """The result of the ``__exit__(None, None, None)`` call on the normal path."""


class PrevExc(Marker):
    """The previous exception that ``PUSH_EXC_INFO`` saves."""


class CurrentExc(Marker):
    """The exception being handled."""


class Converted(Marker):
    """A value after 3.13's ``CONVERT_VALUE`` (``!s``/``!r``/``!a``), waiting for its format."""

    def __init__(self, value, conversion):
        self.value = value
        self.conversion = conversion


class ClassNamespace(Marker):
    """``LOAD_LOCALS``: the class namespace a ``LOAD_FROM_DICT_OR_*`` looks in."""


class CodeConst(Marker):
    """A code object constant, waiting for ``MAKE_FUNCTION``."""

    def __init__(self, code):
        self.code = code


class FunctionValue(Marker):
    """A function built by ``MAKE_FUNCTION``: becomes a ``def`` when stored, else a lambda."""

    def __init__(self, code, defaults=(), kwdefaults=None, annotations=None, closure=None):
        self.code = code
        self.defaults = list(defaults)
        self.kwdefaults = kwdefaults or {}
        self.annotations = annotations or {}
        self.closure = closure
        self.decorators = []


class ClassValue(Marker):
    """The result of ``__build_class__(func, name, *bases, **kw)``."""

    def __init__(self, function, name, bases, keywords):
        self.function = function
        self.name = name
        self.bases = bases
        self.keywords = keywords
        self.decorators = []


class TypeAliasValue(Marker):
    """3.12+ ``type name = value``: ``INTRINSIC_TYPEALIAS`` made the alias from (name, type
    parameters, a function returning the value); the store of ``name`` makes the statement."""

    def __init__(self, name, value, type_params=()):
        self.name = name
        self.value = value
        self.type_params = list(type_params)


class BuildClass(Marker):
    """``LOAD_BUILD_CLASS``: the builtin that a class statement calls."""


class AugValue(Marker):
    """An in-place operation waiting for the store that makes it an augmented assignment."""

    def __init__(self, target, op, value):
        self.target = target
        self.op = op
        self.value = value


class ImportValue(Marker):
    """A module from ``IMPORT_NAME``, waiting for its store(s)."""

    def __init__(self, module, fromlist, level):
        self.module = module
        self.fromlist = fromlist
        self.level = level
        self.names = []
        self.lazy = False  # 3.15+ `lazy import` (PEP 810)


class ImportFromValue(Marker):
    def __init__(self, source, name):
        self.source = source
        self.name = name


class UnpackSlot(Marker):
    """One element of an unpacking target, filled by the store that pops it."""

    def __init__(self, builder, position):
        self.builder = builder
        self.position = position


class UnpackBuilder(object):
    """Collects the stores after ``UNPACK_SEQUENCE``/``UNPACK_EX`` into a tuple target."""

    def __init__(self, value, count, star_index=None, parent=None):
        self.value = value
        self.targets = [None] * count
        self.star_index = star_index
        self.parent = parent  # (UnpackSlot) when nested inside another unpacking

    def complete(self):
        return all(t is not None for t in self.targets)

    def as_target(self):
        elts = []
        for k, t in enumerate(self.targets):
            elts.append(ast.Starred(value=t, ctx=ast.Store()) if k == self.star_index else t)
        return ast.Tuple(elts=elts, ctx=ast.Store())


BINOPS = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "@": ast.MatMult, "/": ast.Div,
    "//": ast.FloorDiv, "%": ast.Mod, "**": ast.Pow, "<<": ast.LShift, ">>": ast.RShift,
    "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor,
}
CMPOPS = {
    "<": ast.Lt, "<=": ast.LtE, "==": ast.Eq, "!=": ast.NotEq, ">": ast.Gt, ">=": ast.GtE,
    "in": ast.In, "not in": ast.NotIn, "is": ast.Is, "is not": ast.IsNot,
}


# One Load context for every node made here, as ast.parse shares one (it has no fields: no
# node changes it, a node that stores gets an ast.Store() of its own).
_LOAD = ast.Load()
LOAD = _LOAD  # (comprehension_bodies.op_LOAD_FAST makes its names without name())
# and one Store context for the name targets made per store instruction (ast.parse shares its
# Store too; store_ctx still gives a node switched to a target a Store of its own)
STORE = ast.Store()


def name(identifier, ctx=None):
    if identifier[:1] == "." and identifier != ".0":
        # compiler-made names (.type_params, .generic_base...: PEP 695 type parameters)
        raise DecompilationError("compiler-internal name %r has no source form" % identifier)
    return ast.Name(identifier, ctx or _LOAD)  # (positional: half the cost of keywords)


def _stable_order(value):
    return type(value).__name__, repr(value)


_PLAIN_CONSTANTS = frozenset([str, bytes, bool, type(None)])  # written as they are


def const(value):
    kind = type(value)
    if kind in _PLAIN_CONSTANTS or kind is int and value >= 0:
        return ast.Constant(value)  # (most constants: none of the cases below; positional:
        # a third cheaper than the keyword, as for every node made per instruction here)
    if isinstance(value, frozenset):
        if not value:
            return ast.Call(func=name("frozenset"), args=[], keywords=[])
        # in a stable order (a frozenset iterates in its elements' hash order, which for
        # strings changes from one process to the next): the compiler folds any order back
        node = ast.Set(elts=[const(v) for v in sorted(value, key=_stable_order)])
        node._const = value
        return node
    if isinstance(value, tuple):
        # element by element: the compiler folds it back, and reprs such as Ellipsis or inf
        # would not parse as constants
        node = ast.Tuple(elts=[const(v) for v in value], ctx=ast.Load())
        node._const = value
        return node
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        text = "1e999" if value > 0 else "-1e999" if value < 0 else "1e999 - 1e999"
        return ast.parse(text, mode="eval").body
    if value is Ellipsis:
        return ast.Constant(value=Ellipsis)
    if type(value) is complex:
        return _complex(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (
            value < 0 or (value == 0 and str(value).startswith("-"))):
        # a folded negative literal: as a unary minus, unparse puts the parentheses that
        # `(-1) ** x` needs, and the compiler folds it back to the same constant
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
    return ast.Constant(value=value)


def _complex(value):
    """A complex constant as source the compiler folds back to the very same value, signs of
    zero included: its repr does not (``(-0-1j)`` reads as ``0 - 1j``, real part +0.0), and
    ``-1j`` in source is ``complex(-0.0, -1.0)``, a negative imaginary literal's usual form."""
    real, imag = value.real, value.imag
    if real != real or imag != imag or abs(real) == float("inf") or abs(imag) == float("inf"):
        return ast.Constant(value=value)  # ast.unparse spells these itself

    def imaginary(magnitude):
        return ast.Constant(value=complex(0.0, magnitude))

    negative_real = math.copysign(1.0, real) < 0
    negative_imag = math.copysign(1.0, imag) < 0
    if real == 0:
        if not negative_real and not negative_imag:
            return imaginary(imag)                                          # 2j
        if negative_real and negative_imag:
            return ast.UnaryOp(op=ast.USub(), operand=imaginary(-imag))     # -2j
        zero_minus = ast.BinOp(left=ast.Constant(value=0), op=ast.Sub(),
                               right=imaginary(abs(imag)))
        if not negative_real:
            return zero_minus                                               # 0 - 2j
        return ast.UnaryOp(op=ast.USub(), operand=zero_minus)               # -(0 - 2j)
    return ast.BinOp(left=const(real), op=ast.Sub() if negative_imag else ast.Add(),
                     right=imaginary(abs(imag)))                            # 1.5 - 2j


def store_ctx(node):
    """A copy-free switch of an expression node to Store context for use as a target."""
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Starred)):
        node.ctx = ast.Store()
    elif isinstance(node, (ast.Tuple, ast.List)):
        node.ctx = ast.Store()
        for e in node.elts:
            store_ctx(e)
    return node


class StackMachine(object):
    """Opcode handlers that only move expressions on the stack.

    Subclasses add statement and control-flow handlers.  A handler takes
    ``(ins, stack, out)`` and returns the index to continue at, or ``None`` for the next one.
    """

    code = None
    # which walk (statements.walk numbers them) made a container display being built: a
    # branch's walk that adds to one made before it adds to its own copy (_literal_target)
    walk_serial = 0

    def fail(self, message, ins=None):
        raise DecompilationError(
            message, self.code, ins.offset if ins is not None else None,
            ins.op if ins is not None else None)

    def pop(self, stack, ins, n=1):
        # (the commonest handlers write this out, the length test and then the pops: the
        # same failure at the same point, without a call per value)
        if len(stack) < n:
            self.fail("stack underflow", ins)
        if n == 1:
            return stack.pop()
        values = stack[-n:]
        del stack[-n:]
        return values

    @staticmethod
    def expr(value):
        """Turn a stack value into an expression, for markers that have a value form."""
        return value

    # -- loads -----------------------------------------------------------------------------
    def op_LOAD_CONST(self, ins, stack, out):
        value = ins.argval
        kind = value.__class__
        if kind in _PLAIN_CONSTANTS or kind is int and value >= 0:
            stack.append(ast.Constant(value))  # (const()'s first case, without the call)
        elif hasattr(value, "co_code"):
            stack.append(CodeConst(value))
        else:
            stack.append(const(value))

    def _load_name(self, ins, stack, out):
        stack.append(name(ins.argval))

    def _load_global(self, ins, stack, out):
        identifier = ins.argval
        # (name(), written out for the commonest loads: only a compiler-made name, `.x`,
        # needs its check)
        node = ast.Name(identifier, _LOAD) if identifier[:1] != "." else name(identifier)
        node._global = True
        stack.append(node)

    def op_LOAD_DEREF(self, ins, stack, out):
        node = name(ins.argval)
        node._cell = True  # reading a cell is observable in its place (evaluation_order)
        stack.append(node)

    op_LOAD_FAST = _load_name
    op_LOAD_NAME = op_LOAD_GLOBAL = _load_global
    op_LOAD_CLASSDEREF = _load_name

    def op_LOAD_CLOSURE(self, ins, stack, out):
        """The cell itself, not its value.  The compiler only loads cells to build a closure
        (MAKE_FUNCTION uses them, nothing is written); generated code also passes cells around
        (Dynamo's resume functions), and the one source expression that yields this frame's
        cell for ``x`` is ``(lambda: x).__closure__[0]``."""
        lam = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                            kw_defaults=[], kwarg=None, defaults=[]),
                         body=name(ins.argval))
        stack.append(ast.Subscript(
            value=ast.Attribute(value=lam, attr="__closure__", ctx=ast.Load()),
            slice=ast.Constant(value=0), ctx=ast.Load()))

    def op_LOAD_FROM_DICT_OR_GLOBALS(self, ins, stack, out):
        """3.12+ class scopes: the name looked up in the class namespace first (pushed by
        ``LOAD_LOCALS`` or the ``__classdict__`` cell), which is what a plain name means there."""
        self.pop(stack, ins)
        self._load_global(ins, stack, out)

    def op_LOAD_FROM_DICT_OR_DEREF(self, ins, stack, out):
        self.pop(stack, ins)
        self._load_name(ins, stack, out)

    def op_LOAD_LOCALS(self, ins, stack, out):
        stack.append(ClassNamespace())

    def op_LOAD_FAST_AND_CLEAR(self, ins, stack, out):
        stack.append(name(ins.argval))

    def op_PUSH_NULL(self, ins, stack, out):
        stack.append(Null())

    def op_LOAD_ATTR(self, ins, stack, out):
        if not stack:  # (pop(), written out in the commonest handlers)
            self.fail("stack underflow", ins)
        stack.append(ast.Attribute(stack.pop(), ins.argval, _LOAD))

    def op_LOAD_METHOD(self, ins, stack, out):
        if not stack:
            self.fail("stack underflow", ins)
        attr = ast.Attribute(stack.pop(), ins.argval, _LOAD)
        attr._method = True
        if NULL_FIRST:
            stack.append(Null())
            stack.append(attr)
        else:
            stack.append(attr)
            stack.append(Null())

    def op_LOAD_SUPER_ATTR(self, ins, stack, out):
        """3.12+: ``super().attr`` (or ``super(cls, self).attr``) in one instruction that pops
        the ``super`` global, the class cell (or ``cls``) and ``self``."""
        self_arg, cls, sup = self.pop(stack, ins), self.pop(stack, ins), self.pop(stack, ins)
        args = [self.value(cls, ins), self.value(self_arg, ins)] if ins.arg & 2 else []
        call = ast.Call(func=self.value(sup, ins), args=args, keywords=[])
        if not ins.arg & 1:
            stack.append(ast.Attribute(value=call, attr=ins.argval, ctx=ast.Load()))
            return
        stack.append(call)
        self.op_LOAD_METHOD(ins, stack, out)

    def op_LOAD_ASSERTION_ERROR(self, ins, stack, out):
        stack.append(name("AssertionError"))

    def op_LOAD_BUILD_CLASS(self, ins, stack, out):
        stack.append(BuildClass())

    # -- stack shuffling -------------------------------------------------------------------
    def op_COPY(self, ins, stack, out):
        n = ins.argval
        if len(stack) < n:
            self.fail("stack underflow", ins)
        value = stack[-n]
        if isinstance(value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.BinOp)):
            self.copied = True  # see StatementWalker.hoist_copies
        stack.append(value)

    def op_SWAP(self, ins, stack, out):
        n = ins.argval
        if len(stack) < n:
            self.fail("stack underflow", ins)
        stack[-1], stack[-n] = stack[-n], stack[-1]
        if n > 1 and any(isinstance(v, ast.expr) and not isinstance(v, (ast.Name, ast.Constant))
                         for v in stack[-n:]):
            self.disordered = True  # see StatementWalker.spill

    def op_ROT(self, ins, stack, out):
        n = ins.argval
        if len(stack) < n:
            self.fail("stack underflow", ins)
        top = stack.pop()
        stack.insert(len(stack) - n + 1, top)

    # -- operators -------------------------------------------------------------------------
    def op_BINARY_OP(self, ins, stack, out):
        if len(stack) < 2:
            self.fail("stack underflow", ins)
        right = stack.pop()
        left = stack.pop()
        symbol = ins.argval
        if symbol.endswith("=") and symbol[:-1] in BINOPS:
            stack.append(AugValue(left, BINOPS[symbol[:-1]](), right))
            return
        op = BINOPS.get(symbol)
        if op is None:
            self.fail("unknown binary operator %r" % symbol, ins)
        stack.append(ast.BinOp(left, op(), right))

    def _unary(op):
        def handler(self, ins, stack, out):
            stack.append(ast.UnaryOp(op(), self.pop(stack, ins)))
        return handler

    op_UNARY_NEGATIVE = _unary(ast.USub)
    op_UNARY_POSITIVE = _unary(ast.UAdd)
    op_UNARY_NOT = _unary(ast.Not)
    op_UNARY_INVERT = _unary(ast.Invert)
    del _unary

    def op_CALL_INTRINSIC_1(self, ins, stack, out):
        kind = ins.argval
        if kind == "INTRINSIC_UNARY_POSITIVE":
            stack.append(ast.UnaryOp(op=ast.UAdd(), operand=self.pop(stack, ins)))
        elif kind == "INTRINSIC_LIST_TO_TUPLE":
            self.op_LIST_TO_TUPLE(ins, stack, out)
        elif kind == "INTRINSIC_TYPEALIAS":
            stack.append(self._type_alias(self.pop(stack, ins), ins))
        elif kind in ("INTRINSIC_TYPEVAR", "INTRINSIC_PARAMSPEC", "INTRINSIC_TYPEVARTUPLE"):
            ENTRY.type_param_intrinsic(self, kind, ins, stack)
        else:
            self.fail("unsupported intrinsic %s" % kind, ins)

    def _type_alias(self, args, ins):
        """(name, None, function) -> the alias; the function (decompiled as a lambda when the
        tuple was built) returns the value. Generic aliases (type parameters instead of None)
        are made in an annotation scope, which stands as a whole (fallback.py)."""
        elts = getattr(args, "elts", None)
        if not elts or len(elts) != 3 or not isinstance(getattr(elts[0], "value", None), str) \
                or getattr(elts[1], "value", 0) is not None or not isinstance(elts[2], ast.Lambda):
            self.fail("unrecognised type alias", ins)
        lam = elts[2]
        if lam.args.args or lam.args.posonlyargs or lam.args.vararg or lam.args.kwonlyargs:
            self.fail("unrecognised type alias function", ins)
        return TypeAliasValue(elts[0].value, lam.body)

    def op_COMPARE_OP(self, ins, stack, out):
        if len(stack) < 2:
            self.fail("stack underflow", ins)
        right = stack.pop()
        left = stack.pop()
        op = CMPOPS.get(ins.argval)
        if op is None:
            self.fail("unknown comparison %r" % ins.argval, ins)
        stack.append(ast.Compare(left, [op()], [right]))

    def op_IS_OP(self, ins, stack, out):
        if len(stack) < 2:
            self.fail("stack underflow", ins)
        right = stack.pop()
        left = stack.pop()
        op = ast.IsNot() if ins.arg else ast.Is()
        stack.append(ast.Compare(left, [op], [right]))

    def op_CONTAINS_OP(self, ins, stack, out):
        if len(stack) < 2:
            self.fail("stack underflow", ins)
        right = stack.pop()
        left = stack.pop()
        op = ast.NotIn() if ins.arg else ast.In()
        stack.append(ast.Compare(left, [op], [right]))

    # -- subscripts ------------------------------------------------------------------------
    def op_BINARY_SUBSCR(self, ins, stack, out):
        if len(stack) < 2:
            self.fail("stack underflow", ins)
        index = stack.pop()
        container = stack.pop()
        stack.append(ast.Subscript(container, self._slice_expr(index), _LOAD))

    @staticmethod
    def _slice_expr(index):
        """The subscript for ``index``: 3.14+ folds constant slices (``a[::2]``) into
        ``slice`` constants, also inside a tuple index (``a[i:j, ::2]``)."""
        if isinstance(index, ast.Constant) and isinstance(index.value, slice):
            s = index.value
            return ast.Slice(lower=None if s.start is None else const(s.start),
                             upper=None if s.stop is None else const(s.stop),
                             step=None if s.step is None else const(s.step))
        if isinstance(index, ast.Constant) and isinstance(index.value, tuple) and \
                any(isinstance(v, slice) for v in index.value):
            index = ast.Tuple(elts=[const(v) for v in index.value], ctx=ast.Load())
        if isinstance(index, ast.Tuple) and any(
                isinstance(e, ast.Constant) and isinstance(e.value, slice) for e in index.elts):
            return ast.Tuple(elts=[StackMachine._slice_expr(e) for e in index.elts],
                             ctx=ast.Load())
        return index

    def op_BUILD_SLICE(self, ins, stack, out):
        parts = self.pop(stack, ins, ins.argval)
        parts = [None if isinstance(p, ast.Constant) and p.value is None else p for p in parts]
        if len(parts) == 2:
            parts.append(None)
        stack.append(ast.Slice(lower=parts[0], upper=parts[1], step=parts[2]))

    def op_BINARY_SLICE(self, ins, stack, out):
        upper = self.pop(stack, ins)
        lower = self.pop(stack, ins)
        container = self.pop(stack, ins)
        none = lambda v: None if isinstance(v, ast.Constant) and v.value is None else v
        stack.append(ast.Subscript(value=container, slice=ast.Slice(
            lower=none(lower), upper=none(upper), step=None), ctx=ast.Load()))

    # -- containers ------------------------------------------------------------------------
    def op_BUILD_TUPLE(self, ins, stack, out):
        stack.append(ast.Tuple(self._elements(stack, ins, ins.argval), _LOAD))

    def op_BUILD_LIST(self, ins, stack, out):
        stack.append(ast.List(self._elements(stack, ins, ins.argval), _LOAD))
        stack[-1]._owner = self.walk_serial

    def op_BUILD_SET(self, ins, stack, out):
        stack.append(ast.Set(elts=self._elements(stack, ins, ins.argval)))
        stack[-1]._owner = self.walk_serial

    def _items(self, stack, ins, count):
        """The top ``count`` values, popped, bottom first (pop(), written out: every call
        takes its arguments so)."""
        if count == 0:
            return []
        if count > 1:
            if len(stack) < count:
                self.fail("stack underflow", ins)
            values = stack[-count:]
            del stack[-count:]
            return values
        if not stack:
            self.fail("stack underflow", ins)
        return [stack.pop()]

    def _elements(self, stack, ins, count):
        """A display's items as expressions: a function made for it is a lambda."""
        return [self.value(v, ins) if isinstance(v, FunctionValue) else v
                for v in self._items(stack, ins, count)]

    def op_BUILD_MAP(self, ins, stack, out):
        flat = self._elements(stack, ins, 2 * ins.argval)
        stack.append(ast.Dict(flat[0::2], flat[1::2]))
        stack[-1]._owner = self.walk_serial

    def op_BUILD_CONST_KEY_MAP(self, ins, stack, out):
        keys = self.pop(stack, ins)
        values = self._elements(stack, ins, ins.argval)
        names = getattr(keys, "_const", None)
        if not isinstance(names, tuple):
            self.fail("BUILD_CONST_KEY_MAP without constant keys", ins)
        stack.append(ast.Dict(keys=[const(k) for k in names], values=values))

    def _literal_target(self, stack, ins, node_type):
        """The container a LIST_EXTEND/SET_ADD/... adds to, if it is a literal being built
        that nothing else refers to; None when the update must be a method call instead."""
        n = ins.argval
        if len(stack) < n:
            self.fail("stack underflow", ins)
        target = stack[-n]
        if isinstance(target, node_type) and getattr(target, "_const", None) is None and \
                sum(1 for v in stack if v is target) == 1:
            if getattr(target, "_owner", None) != self.walk_serial:
                # made before this walk (a branch: `f(**{..., k: a if c else b})`, whose
                # other branch adds to the same display): add to a copy of it
                target = copy.copy(target)
                for field in ("elts", "keys", "values"):
                    if isinstance(getattr(target, field, None), list):
                        setattr(target, field, list(getattr(target, field)))
                target._owner = self.walk_serial
                stack[-n] = target
            return target
        return None

    def _method_update(self, ins, stack, out, method, *args):
        """Generated code updates containers it also refers to elsewhere: keep it in a
        temporary and call the list/set/dict method that the opcode performs."""
        n = ins.argval
        target = stack[-n]
        if not (isinstance(target, ast.Name) and getattr(target, "_temp", False)):
            temp = self.new_temp()
            out.append(ast.Assign(targets=[name(temp, ast.Store())], value=self.value(target, ins), lineno=0))
            ref = name(temp)
            ref._temp = True
            for k in range(len(stack)):
                if stack[k] is target:
                    stack[k] = ref
            target = ref
        call = ast.Call(func=ast.Attribute(value=name(target.id), attr=method, ctx=ast.Load()),
                        args=[self.value(a, ins) for a in args], keywords=[])
        out.append(ast.Expr(value=call))

    def op_LIST_EXTEND(self, ins, stack, out):
        value = self.pop(stack, ins)
        target = self._literal_target(stack, ins, ast.List)
        if target is None:
            return self._method_update(ins, stack, out, "extend", value)
        if isinstance(getattr(value, "_const", None), tuple):
            target.elts.extend(value.elts)
        else:
            target.elts.append(ast.Starred(value=self.value(value, ins), ctx=ast.Load()))

    def op_SET_UPDATE(self, ins, stack, out):
        value = self.pop(stack, ins)
        target = self._literal_target(stack, ins, ast.Set)
        if target is None:
            return self._method_update(ins, stack, out, "update", value)
        if isinstance(value, ast.Set) and getattr(value, "_const", None) is not None:
            target.elts.extend(value.elts)
        else:
            target.elts.append(ast.Starred(value=self.value(value, ins), ctx=ast.Load()))

    def op_DICT_UPDATE(self, ins, stack, out):
        value = self.pop(stack, ins)
        target = self._literal_target(stack, ins, ast.Dict)
        if target is None:
            return self._method_update(ins, stack, out, "update", value)
        target.keys.append(None)
        target.values.append(self.value(value, ins))

    op_DICT_MERGE = op_DICT_UPDATE

    def op_LIST_TO_TUPLE(self, ins, stack, out):
        value = self.pop(stack, ins)
        if isinstance(value, ast.List):
            stack.append(ast.Tuple(elts=value.elts, ctx=ast.Load()))
            stack[-1]._call_args = True  # (a call's arguments, `f(a, *b)`: _spread_call_args)
        else:
            stack.append(ast.Call(func=name("tuple"), args=[self.value(value, ins)], keywords=[]))

    def op_LIST_APPEND(self, ins, stack, out):
        value = self.pop(stack, ins)
        target = self._literal_target(stack, ins, ast.List)
        if target is None:
            return self._method_update(ins, stack, out, "append", value)
        target.elts.append(self.value(value, ins))

    def op_SET_ADD(self, ins, stack, out):
        value = self.pop(stack, ins)
        target = self._literal_target(stack, ins, ast.Set)
        if target is None:
            return self._method_update(ins, stack, out, "add", value)
        target.elts.append(self.value(value, ins))

    def op_MAP_ADD(self, ins, stack, out):
        value = self.pop(stack, ins)
        key = self.pop(stack, ins)
        target = self._literal_target(stack, ins, ast.Dict)
        if target is None:
            return self._method_update(ins, stack, out, "__setitem__", key, value)
        target.keys.append(self.value(key, ins))
        target.values.append(self.value(value, ins))

    # -- strings ---------------------------------------------------------------------------
    def op_FORMAT_VALUE(self, ins, stack, out):
        flags = ins.arg
        spec = self.pop(stack, ins) if flags & 0x04 else None
        value = self.pop(stack, ins)
        conversion = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}[flags & 3]
        if spec is not None and not isinstance(spec, ast.JoinedStr):
            spec = ast.JoinedStr(values=[spec])
        formatted = ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)
        stack.append(ast.JoinedStr(values=[formatted]))

    # 3.13+ splits FORMAT_VALUE: CONVERT_VALUE (the !s/!r/!a), then FORMAT_SIMPLE or
    # FORMAT_WITH_SPEC (the spec on top of the value)
    def op_CONVERT_VALUE(self, ins, stack, out):
        value = self.pop(stack, ins)
        stack.append(Converted(self.value(value, ins), {1: "s", 2: "r", 3: "a"}[ins.arg]))

    def _formatted(self, value, spec, ins):
        conversion = -1
        if isinstance(value, Converted):
            value, conversion = value.value, ord(value.conversion)
        if spec is not None and not isinstance(spec, ast.JoinedStr):
            spec = ast.JoinedStr(values=[spec])
        formatted = ast.FormattedValue(value=self.value(value, ins), conversion=conversion,
                                       format_spec=spec)
        return ast.JoinedStr(values=[formatted])

    def op_FORMAT_SIMPLE(self, ins, stack, out):
        stack.append(self._formatted(self.pop(stack, ins), None, ins))

    def op_FORMAT_WITH_SPEC(self, ins, stack, out):
        spec = self.pop(stack, ins)
        stack.append(self._formatted(self.pop(stack, ins), spec, ins))

    def op_BUILD_STRING(self, ins, stack, out):
        parts = self._items(stack, ins, ins.argval)
        values = []
        for p in parts:
            if isinstance(p, ast.JoinedStr):
                values.extend(p.values)
            else:
                values.append(p)
        stack.append(ast.JoinedStr(values=values))

    # 3.14's template strings (PEP 750): ``t"a{x!r:>5}"`` pushes the literal parts as one
    # constant tuple, then per field the value, the field's source text (a constant), its
    # format spec if any and BUILD_INTERPOLATION (bit 0: has a spec; bits 2+: conversion),
    # then a tuple of the fields and BUILD_TEMPLATE
    def op_BUILD_INTERPOLATION(self, ins, stack, out):
        spec = self.pop(stack, ins) if ins.arg & 1 else None
        text = self.pop(stack, ins)
        value = self.value(self.pop(stack, ins), ins)
        if spec is not None and not isinstance(spec, ast.JoinedStr):
            spec = ast.JoinedStr(values=[spec])
        conversion = (-1, ord("s"), ord("r"), ord("a"))[(ins.arg >> 2) & 3]
        stack.append(ast.Interpolation(value=value, str=_field_text(text, value),
                                       conversion=conversion, format_spec=spec))

    def op_BUILD_TEMPLATE(self, ins, stack, out):
        fields = self.pop(stack, ins)
        literals = self.pop(stack, ins)
        if getattr(fields, "_const", None) == ():
            fields = []
        elif isinstance(fields, ast.Tuple):
            fields = list(fields.elts)
        else:
            self.fail("template fields that are not a tuple", ins)
        strings = getattr(literals, "_const", None)
        if not (isinstance(strings, tuple) and len(strings) == len(fields) + 1
                and all(isinstance(s, str) for s in strings)
                and all(isinstance(f, ast.Interpolation) for f in fields)):
            self.fail("template strings that do not match its fields", ins)
        values = []
        for literal, field in zip(strings, fields + [None]):
            if literal:
                values.append(ast.Constant(value=literal))
            if field is not None:
                values.append(field)
        stack.append(ast.TemplateStr(values=values))

    # -- calls -----------------------------------------------------------------------------
    def _callable(self, stack, ins):
        """Pop the callable and the slot beside it; return (callable, [self] or []).

        3.11/3.12 push ``NULL, callable`` or ``callable, self``; 3.13+ push
        ``callable, NULL`` or ``callable, self``.
        """
        if len(stack) < 2:
            self.fail("stack underflow", ins)
        top = stack.pop()
        below = stack.pop()
        if NULL_FIRST:
            if isinstance(below, Null):
                self._note_plain_attribute_call(top)
                return top, []
        elif isinstance(top, Null):
            self._note_plain_attribute_call(below)
            return below, []
        return below, [top]

    def _note_plain_attribute_call(self, func):
        """``mod.f()`` compiled without the method-call form: the compiler does that when a
        name ``mod`` was bound by an import at module level (it asks the module's symbol table,
        whatever scope ``mod`` has here), so a function decompiled alone needs that import in
        its source to compile back the same."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                not getattr(func, "_method", False):
            self.imported_names.add(func.value.id)

    imported_names = set()
    module_names = set()  # names the enclosing module's top scope uses (render._module_names)

    def op_CALL(self, ins, stack, out):
        if self._plain_call(ins, stack):
            return
        args = self._items(stack, ins, ins.argval)
        func, first = self._callable(stack, ins)
        if PROFILE.super_attr_calls and isinstance(func, ast.Name) and func.id == "super" and \
                len(first + args) in (0, 2) and self._attribute_follows(ins.index + 1):
            # `super().attr` as a plain call where LOAD_SUPER_ATTR would do: the module
            # names `super`
            self.module_names.add("super")
        self._make_call(ins, stack, func, first + args, [])

    def _plain_call(self, ins, stack):
        """Make the commonest call at once: callable and arguments all expressions already,
        the callable not ``super`` (nearly every CALL). What the general path would make of
        it (its checks for a class or function being built, a decorator, a function made for
        an argument are all about markers, which a plain call has none of), without its
        calls; True when made, False (the stack untouched) for the general path."""
        count = ins.argval
        depth = count + 2
        if len(stack) < depth:
            return False
        node_type = ast.AST
        below, top = stack[-depth], stack[-depth + 1]
        if NULL_FIRST and isinstance(below, Null):
            func, first = top, None
        elif not NULL_FIRST and isinstance(top, Null):
            func, first = below, None
        else:
            func, first = below, top
            if not isinstance(first, node_type):
                return False
        if not isinstance(func, node_type) or \
                isinstance(func, ast.Name) and func.id == "super":
            return False
        args = stack[len(stack) - count:]
        for arg in args:
            if not isinstance(arg, node_type):
                return False
        del stack[-depth:]
        if first is None:
            if isinstance(func, ast.Attribute) and not getattr(func, "_method", False) and \
                    isinstance(func.value, ast.Name):
                self.imported_names.add(func.value.id)  # (_note_plain_attribute_call)
        else:
            args.insert(0, first)
        stack.append(ast.Call(func, args, []))
        return True

    def _attribute_follows(self, k):
        """Whether instruction ``k`` reads an attribute (other than ``__class__``, which
        LOAD_SUPER_ATTR never reads) of the value just made."""
        nxt = self.instrs[k] if k < self.n else None
        return nxt is not None and nxt.op in ("LOAD_ATTR", "LOAD_METHOD") and \
            nxt.argval != "__class__"

    def op_CALL_KW(self, ins, stack, out):
        names = self.pop(stack, ins)
        names = getattr(names, "_const", None) or ()
        values = self._items(stack, ins, ins.argval)
        count = len(names)
        args, kwvalues = values[:len(values) - count], values[len(values) - count:]
        keywords = [ast.keyword(arg=k, value=v) for k, v in zip(names, kwvalues)]
        func, first = self._callable(stack, ins)
        self._make_call(ins, stack, func, first + args, keywords)

    def op_CALL_FUNCTION(self, ins, stack, out):  # <= 3.10
        args = self._items(stack, ins, ins.argval)
        func = self.pop(stack, ins)
        self._make_call(ins, stack, func, args, [])

    def op_CALL_METHOD(self, ins, stack, out):  # <= 3.10
        self.op_CALL(ins, stack, out)

    def op_CALL_FUNCTION_KW(self, ins, stack, out):  # <= 3.10
        names = getattr(self.pop(stack, ins), "_const", None) or ()
        values = self._items(stack, ins, ins.argval)
        count = len(names)
        args, kwvalues = values[:len(values) - count], values[len(values) - count:]
        keywords = [ast.keyword(arg=k, value=v) for k, v in zip(names, kwvalues)]
        func = self.pop(stack, ins)
        self._make_call(ins, stack, func, args, keywords)

    def op_CALL_FUNCTION_EX(self, ins, stack, out):
        kwargs = self.pop(stack, ins) if ins.arg & 1 else None
        if isinstance(kwargs, Null):  # 3.14+: the kwargs slot without ** arguments
            kwargs = None
        posargs = self.pop(stack, ins)
        saved, self.imported_names = self.imported_names, set()
        try:
            func, _ = self._callable(stack, ins)  # always NULL + callable: no import hint
        finally:
            self.imported_names = saved
        if isinstance(posargs, (ast.Tuple, ast.List)) and not getattr(posargs, "_display", False) \
                and (self._spread_call_args(posargs, kwargs)):
            args = list(posargs.elts)
        else:
            args = [ast.Starred(value=posargs, ctx=ast.Load())]
        keywords = []
        if kwargs is not None:
            if isinstance(kwargs, ast.Dict):
                for k, v in zip(kwargs.keys, kwargs.values):
                    if k is None:
                        keywords.append(ast.keyword(arg=None, value=v))
                    else:
                        keywords.append(ast.keyword(arg=k.value, value=v))
            else:
                keywords.append(ast.keyword(arg=None, value=kwargs))
        self._make_call(ins, stack, func, args, keywords)

    def _spread_call_args(self, posargs, kwargs):
        """Whether CALL_FUNCTION_EX's positional tuple is the call's own arguments (``f(a,
        *b)``: a list turned into a tuple for the call; ``f(a, **k)``) rather than one
        starred display, ``f(*[a, b])`` / ``f(*(a, b))``: ``f(a, b)`` compiles to a plain
        call. Generated code (the lens) keeps the plain spelling, which does the same."""
        session = getattr(self, "session", None)
        if session is not None and session.generated:
            return True
        if isinstance(posargs, ast.List):
            return False
        return kwargs is not None or getattr(posargs, "_call_args", False)

    def _make_call(self, ins, stack, func, args, keywords):
        if isinstance(func, BuildClass):
            stack.append(self._class_value(ins, args, keywords))
            return
        if isinstance(func, FunctionValue) and func.code.co_name.startswith("<"):
            if func.code.co_name in ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"):
                stack.append(ENTRY.comprehension(self, func, args[0], ins))
                return
            if ENTRY.is_generic_scope(func.code) and not keywords:
                stack.append(ENTRY.generic_definition(self, func, args, ins))
                return
        if len(args) == 1 and not keywords and isinstance(func, ast.expr) and (
                isinstance(args[0], ClassValue) or (isinstance(args[0], FunctionValue) and
                                                    not args[0].code.co_name.startswith("<"))):
            # a decorator applied to the function or class being defined
            args[0].decorators.insert(0, func)
            stack.append(args[0])
            return
        # (value(), whose first case, a node, is nearly every argument, asked only of others)
        node_type = ast.AST
        if not isinstance(func, node_type):
            if isinstance(func, WithExit):  # __exit__(None, None, None) on a normal exit
                stack.append(ExitCallResult())
                return
            func = self.value(func, ins)
        args = [a if isinstance(a, node_type) else self.value(a, ins) for a in args]
        for kw in keywords:
            kw.value = self.value(kw.value, ins)
        stack.append(ast.Call(func, args, keywords))

    def _class_value(self, ins, args, keywords):
        if len(args) < 2 or not isinstance(args[0], FunctionValue):
            self.fail("unrecognised __build_class__ call", ins)
        cls_name = args[1].value if isinstance(args[1], ast.Constant) else None
        return ClassValue(args[0], cls_name, [self.value(a, ins) for a in args[2:]], keywords)

    def value(self, v, ins):
        """A stack value as an expression; functions become lambdas, markers are errors."""
        if isinstance(v, ast.AST):
            return v
        if isinstance(v, FunctionValue):
            return ENTRY.lambda_expr(self, v, ins)
        if isinstance(v, LoopItem):
            return v
        self.fail("internal value %r used as an expression" % (v,), ins)

    # -- functions -------------------------------------------------------------------------
    def op_MAKE_FUNCTION(self, ins, stack, out):
        flags = ins.arg or 0
        code_value = self.pop(stack, ins)
        if not isinstance(code_value, CodeConst):  # <= 3.10: qualname on top
            code_value = self.pop(stack, ins)
        closure = self.pop(stack, ins) if flags & 0x08 else None
        annotations = self.pop(stack, ins) if flags & 0x04 else None
        kwdefaults = self.pop(stack, ins) if flags & 0x02 else None
        defaults = self.pop(stack, ins) if flags & 0x01 else None
        fv = FunctionValue(code_value.code)
        fv.closure = closure
        if defaults is not None:
            fv.defaults = list(defaults.elts)
        if kwdefaults is not None:
            if isinstance(kwdefaults, ast.Dict):
                fv.kwdefaults = dict((k.value, v) for k, v in zip(kwdefaults.keys, kwdefaults.values))
        if annotations is not None:
            fv.annotations = self._annotations(annotations, ins)
        stack.append(fv)

    def op_SET_FUNCTION_ATTRIBUTE(self, ins, stack, out):  # 3.13+
        fv = self.pop(stack, ins)
        attr = self.pop(stack, ins)
        flag = ins.arg
        if flag == 0x08:
            fv.closure = attr
        elif flag == 0x04:
            fv.annotations = self._annotations(attr, ins)
        elif flag == 0x02:
            fv.kwdefaults = dict((k.value, v) for k, v in zip(attr.keys, attr.values))
        elif flag == 0x01:
            fv.defaults = list(attr.elts)
        elif flag == 0x10:
            fv.annotate = attr
        stack.append(fv)

    def _annotations(self, value, ins):
        result = {}
        if isinstance(value, ast.Tuple):
            items = value.elts
            for k in range(0, len(items) - 1, 2):
                result[items[k].value] = items[k + 1]
        elif isinstance(getattr(value, "_const", None), tuple):
            items = value._const
            for k in range(0, len(items) - 1, 2):
                result[items[k]] = const(items[k + 1])
        elif isinstance(value, ast.Dict):
            for k, v in zip(value.keys, value.values):
                result[k.value] = v
        return result

    # -- generators and coroutines ---------------------------------------------------------
    def op_GET_ITER(self, ins, stack, out):
        value = self.pop(stack, ins)
        if isinstance(value, IterMarker):  # 3.15: a genexpr makes its own iterator of .0
            stack.append(value)
        else:
            stack.append(IterMarker(self.value(value, ins)))
        if ITER_SLOTS == 2:
            stack.append(IterIndex())

    def op_GET_YIELD_FROM_ITER(self, ins, stack, out):
        stack.append(IterMarker(self.value(self.pop(stack, ins), ins)))

    def op_GET_AWAITABLE(self, ins, stack, out):
        value = self.pop(stack, ins)
        if isinstance(value, Marker) and not isinstance(value, FunctionValue):
            stack.append(value)  # the awaited __aexit__ call of `async with`
            return
        stack.append(IterMarker(self.value(value, ins)))

    def op_GET_AITER(self, ins, stack, out):
        stack.append(IterMarker(self.value(self.pop(stack, ins), ins)))


def _field_text(text, value):
    """The source text a template field records, when it is the text of ``value``.

    A template's ``Interpolation.expression`` is the field's text as written (``{ x+1 }`` keeps
    its spaces), and it is a constant in the bytecode: writing it back verbatim is what makes
    the output exact. Where it does not parse to the value on the stack (hand-made bytecode),
    ``None`` lets the unparser write the value instead, and verify reports the difference.
    """
    if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
        return None
    if "\n" in text.value or "\r" in text.value or text.value.startswith("{"):
        return None
    try:
        parsed = ast.parse("(" + text.value + ")", mode="eval").body
    except SyntaxError:
        return None
    return text.value if ast.dump(parsed) == ast.dump(value) else None
