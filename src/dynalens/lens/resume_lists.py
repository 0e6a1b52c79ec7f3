"""Dynamo's list shuffling before a resume call, collapsed into the lists it ends up passing.

At a graph break, torch 2.13+ builds the values the resume function needs through a series
of list operations on temporaries (``__temp_4 = [graph_out_0[1]]; __temp_1 = __temp_4[0:1];
__temp_1.extend([b]); __temp_5 = [__temp_1]; ...; del __temp_6[-1];
return __temp_12(__temp_11, __temp_6, *__temp_13)``). What they amount to is one call,
``return __resume_at_102_2([], [], b, __temp_22)``, with each value that is computed (not
merely a variable read) kept in its place as ``__temp_22 = graph_out_0[1]``.

:func:`collapse` follows the temporaries that hold lists through those operations (the lists
are Python objects here, so ``__temp_8 = __temp_6[0]`` is the very list ``__temp_6`` holds)
and writes, where a list is finally used, a list display of what it holds then. It decides
nothing about correctness: the result is a candidate that :mod:`readable` keeps only when the
dataflow check (which follows fresh lists the same way, :mod:`dynalens.decompiler.dataflow_lists`)
says the file does what Dynamo's bytecode does. Anything it does not follow -- a list in a
loop, a branch that falls through after touching a list, a list stored in a real local --
gives up (None), and the faithful form stays.
"""

import ast
import copy

from .temporaries import TEMP_RE, copied, function_named


class _GiveUp(Exception):
    """The function uses lists in a way this pass does not follow."""


class _List(object):
    """One list object: items are _List or ast expressions (each one a value that reading
    again gives the same: a constant, or a local that is bound once)."""

    def __init__(self, items):
        self.items = list(items)


def collapse(tree, func_name):
    """A new tree with the list temporaries of ``func_name`` collapsed, or None when there is
    nothing to collapse or a use is not followed."""
    tree = copied(tree)
    func = function_named(tree, func_name)
    if func is None:
        return None
    numbers = [int(node.id[len("__temp_"):]) for node in ast.walk(func)
               if isinstance(node, ast.Name) and TEMP_RE.match(node.id)]
    if not numbers:
        return None
    walker = _Collapse(func, max(numbers))
    try:
        body, _, _ = walker.block(func.body, {})
    except (_GiveUp, IndexError, ValueError, TypeError):
        return None
    if not walker.collapsed:
        return None
    func.body = body or [ast.Pass()]
    return ast.fix_missing_locations(tree)


def _stable_names(func):
    """Locals bound exactly once in ``func`` (parameters included) and never deleted: reading
    one later gives the value it had when a list took it."""
    stores = {}
    args = func.args
    for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if arg is not None:
            stores[arg.arg] = stores.get(arg.arg, 0) + 1
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + (1 if isinstance(node.ctx, ast.Store)
                                                        else 2)
    return {name for name, count in stores.items() if count == 1}


class _Collapse(object):
    def __init__(self, func, last_temp):
        self.stable = _stable_names(func)
        self.next_temp = last_temp
        self.collapsed = False

    def new_temp(self):
        self.next_temp += 1
        return "__temp_%d" % self.next_temp

    # -- statements -------------------------------------------------------------------
    def block(self, stmts, env):
        """(new statements, env after them, does the block end in return/raise?)"""
        out = []
        for stmt in stmts:
            ends = self.statement(stmt, env, out)
            if ends:
                return out, env, True
        return out, env, False

    def statement(self, stmt, env, out):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and TEMP_RE.match(target.id):
                value = self.value(stmt.value, env, out, hoist=False)
                if isinstance(value, _List) or value is not None:
                    env[target.id] = value
                    self.collapsed |= isinstance(value, _List)
                    return False
                env.pop(target.id, None)
                out.append(self.rendered(stmt, env))
                return False
            if isinstance(target, ast.Subscript) and self._holds_list(target.value, env):
                base = self.value(target.value, env, out, hoist=False)
                if not isinstance(base, _List):
                    raise _GiveUp()
                index = _constant_index(self.rendered(target.slice, env))
                if isinstance(index, slice):
                    items = self.value(stmt.value, env, out, hoist=True)
                    if not isinstance(items, _List):
                        raise _GiveUp()
                    base.items[index] = list(items.items)
                else:
                    base.items[index] = self.item(stmt.value, env, out)
                self.collapsed = True
                return False
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) \
                and stmt.value.func.attr in ("extend", "append") \
                and self._holds_list(stmt.value.func.value, env):
            call = stmt.value
            base = self.value(call.func.value, env, out, hoist=False)
            if not isinstance(base, _List) or len(call.args) != 1 or call.keywords:
                raise _GiveUp()
            if call.func.attr == "append":
                base.items.append(self.item(call.args[0], env, out))
            else:
                items = self.value(call.args[0], env, out, hoist=True)
                if not isinstance(items, _List):
                    raise _GiveUp()
                base.items.extend(items.items)
            self.collapsed = True
            return False
        if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and target.id in env:
                del env[target.id]
                return False
            if isinstance(target, ast.Subscript) and self._holds_list(target.value, env):
                base = self.value(target.value, env, out, hoist=False)
                if not isinstance(base, _List):
                    raise _GiveUp()
                del base.items[_constant_index(self.rendered(target.slice, env))]
                self.collapsed = True
                return False
        if isinstance(stmt, ast.If):
            if self._mentions_list(stmt.test, env):
                raise _GiveUp()
            test = self.rendered(stmt.test, env)
            body_env = _copy_env(env)
            body, _, body_ends = self.block(stmt.body, body_env)
            else_env = _copy_env(env)
            orelse, else_after, else_ends = self.block(stmt.orelse, else_env)
            if not body_ends:
                if _snapshot(body_env) != _snapshot(env) or \
                        _snapshot(else_after) != _snapshot(env):
                    raise _GiveUp()  # lists differ at the join
            else:
                env.clear()
                env.update(else_after)
            out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
            return body_ends and else_ends
        if any(isinstance(getattr(stmt, field, None), list)
               for field in ("body", "orelse", "finalbody", "handlers", "cases")):
            if self._mentions_list(stmt, env) or _stores_any(stmt, env):
                raise _GiveUp()  # a loop, a with, a try over the lists: not followed
            out.append(self.rendered(stmt, env))
            return False
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                    and isinstance(env.get(node.id), _List):
                raise _GiveUp()  # a list changed in a way not followed
        out.append(self.rendered(stmt, env))
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                env.pop(node.id, None)
        return isinstance(stmt, (ast.Return, ast.Raise))

    # -- values -----------------------------------------------------------------------
    def value(self, node, env, out, hoist):
        """A _List, or an expression that names a value (a constant, a stable local), for
        ``node``; None when ``node`` computes something (hoist: write it into a new temporary
        first, in its place, and return that temporary's name)."""
        if isinstance(node, ast.List):
            items = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    inner = self.value(element.value, env, out, hoist=True)
                    if not isinstance(inner, _List):
                        raise _GiveUp()
                    items.extend(inner.items)
                else:
                    items.append(self.item(element, env, out))
            return _List(items)
        if isinstance(node, ast.Name) and node.id in env:
            return env[node.id]
        if isinstance(node, ast.Subscript) and self._holds_list(node.value, env):
            base = self.value(node.value, env, out, hoist=False)
            if not isinstance(base, _List):
                raise _GiveUp()
            index = _constant_index(self.rendered(node.slice, env))
            if isinstance(index, slice):
                return _List(base.items[index])
            return base.items[index]
        if _plain(node, self.stable):
            return self.rendered(node, env)
        if not hoist:
            return None
        name = self.new_temp()
        out.append(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                              value=self.rendered(node, env), lineno=0))
        return ast.Name(id=name, ctx=ast.Load())

    def item(self, node, env, out):
        return self.value(node, env, out, hoist=True)

    def _holds_list(self, node, env):
        while isinstance(node, ast.Subscript):
            node = node.value
        return isinstance(node, ast.List) or (isinstance(node, ast.Name)
                                              and isinstance(env.get(node.id), _List))

    def _mentions_list(self, node, env):
        return any(isinstance(n, ast.Name) and isinstance(env.get(n.id), _List)
                   for n in ast.walk(node))

    def rendered(self, node, env):
        """``node`` with each temporary that holds a list or a value written as what it
        holds (a list display; in a call's ``*args``, the items themselves)."""
        return _Render(env).visit(copied(node))


class _Render(ast.NodeTransformer):
    def __init__(self, env):
        self.env = env

    def visit_Call(self, node):
        self.generic_visit(node)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.List):
                args.extend(arg.value.elts)
            else:
                args.append(arg)
        node.args = args
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.env:
            return _display(self.env[node.id], set())
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.List) and isinstance(node.ctx, ast.Load):
            index = _constant_index(node.slice, strict=False)
            if isinstance(index, int) and -len(node.value.elts) <= index < len(node.value.elts):
                return node.value.elts[index]
        return node


def _display(value, active):
    if isinstance(value, _List):
        if id(value) in active:
            raise _GiveUp()  # a list that holds itself
        active = active | {id(value)}
        return ast.List(elts=[_display(v, active) for v in value.items], ctx=ast.Load())
    return copied(value)


def _plain(node, stable):
    """Does reading ``node`` again later give the same value, with nothing run? (constants,
    tuples of them, locals bound once)"""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Tuple):
        return all(_plain(e, stable) for e in node.elts)
    return isinstance(node, ast.Name) and node.id in stable


def _constant_index(node, strict=True):
    """An int or a slice of int constants; raises _GiveUp (strict) or returns None."""
    def number(n):
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) \
                and isinstance(n.operand, ast.Constant) and type(n.operand.value) is int:
            return -n.operand.value
        raise _GiveUp()
    try:
        if isinstance(node, ast.Slice):
            parts = [None if p is None else number(p) for p in (node.lower, node.upper,
                                                                  node.step)]
            if parts[2] == 0:
                raise _GiveUp()
            return slice(*parts)
        return number(node)
    except _GiveUp:
        if strict:
            raise
        return None


def _copy_env(env):
    return copy.deepcopy(env)


def _snapshot(env):
    return ast.dump(ast.List(elts=[ast.Tuple(elts=[ast.Constant(k), _display(v, set())],
                                             ctx=ast.Load()) for k, v in sorted(env.items())],
                             ctx=ast.Load()))


def _stores_any(stmt, env):
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
               and n.id in env for n in ast.walk(stmt))
