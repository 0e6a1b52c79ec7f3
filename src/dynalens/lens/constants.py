"""Constants with no literal form in Dynamo's code, written as reserved global names.

Dynamo loads objects such as ``torch.float32`` or ``torch.device('cpu')`` with LOAD_CONST. No
source can write such a constant: its repr is not the same bytecode, and ``device(type='cpu')``
does not even run. The lens writes each one as a global, ``__dynalens_const_<n>``, that the
dumped file defines near its top (from a faithful expression for a dtype or a device, else a
comment saying what it is), that the dataflow check takes as that very object (identity), and
that ``debug()`` puts in the frame's globals when it swaps the file's code in.

A name stands for one object for the whole process (the registry keeps the object alive), so
two dumped frames of one module never bind the same name to different objects.
"""

import itertools

PREFIX = "__dynalens_const_"
_LITERAL = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))
_registry = {}        # id(object) -> (name, object)
_counter = itertools.count()


def has_literal_form(value):
    """Does the decompiler write this constant as a literal (or a nested function)?"""
    if type(value) in _LITERAL or hasattr(value, "co_code"):
        return True
    if type(value) in (tuple, frozenset):
        return all(has_literal_form(item) for item in value)
    if type(value) is slice:
        return all(has_literal_form(v) for v in (value.start, value.stop, value.step))
    return False


def _name_for(value):
    entry = _registry.get(id(value))
    if entry is None or entry[1] is not value:
        entry = (PREFIX + str(next(_counter)), value)
        _registry[id(value)] = entry
    return entry[0]


def reserve_constants(code):
    """(code to decompile, {name: object}): each constant with no literal form replaced by a
    unique placeholder string, which `restore_names` turns into the name in the source."""
    reserved = {}
    consts = []
    as_values = _code_values(code)
    for index, value in enumerate(code.co_consts):
        if has_literal_form(value) and index not in as_values:
            consts.append(value)
            continue
        name = _name_for(value)
        reserved[name] = value
        consts.append(_placeholder(name))
    if not reserved:
        return code, reserved
    return code.replace(co_consts=tuple(consts)), reserved


def _code_values(code):
    """Indexes of nested code objects loaded as plain values, not to make a function (Dynamo
    passes one to `_create_nested_fn`): no source loads a code object, so they are reserved
    too. Python 3.11+ (before, the qualified name sits between the load and MAKE_FUNCTION)."""
    import sys

    from dynalens.decompiler.instructions import raw_instructions  # (dis's, decoded once)

    if sys.version_info < (3, 11):
        return set()
    found = set()
    previous = None
    for ins in raw_instructions(code):
        if ins.opname == "CACHE":
            continue
        if previous is not None and ins.opname != "MAKE_FUNCTION":
            found.add(previous)
        previous = ins.arg if ins.opname == "LOAD_CONST" and hasattr(ins.argval, "co_code") \
            else None
    if previous is not None:
        found.add(previous)
    return found


def _placeholder(name):
    return "<dynalens placeholder %s>" % name


def restore_names(source, reserved):
    """The decompiled source with each placeholder literal written as its reserved name."""
    if not isinstance(source, str):
        return source
    for name in reserved:
        for quoted in (repr(_placeholder(name)), '"%s"' % _placeholder(name)):
            source = source.replace(quoted, name)
    return source


def expression(value):
    """A faithful expression for a dtype or a device, else None."""
    try:
        import torch
    except Exception:
        return None
    if isinstance(value, torch.dtype) and str(value).startswith("torch."):
        attr = str(value)[len("torch."):]
        if getattr(torch, attr, None) is value:
            return "torch.%s" % attr
    if isinstance(value, torch.device):
        text = "torch.device(%r)" % str(value)
        if torch.device(str(value)) == value:
            return text
    return None


def definitions(reserved):
    """Header lines: what each reserved constant is, and its definition where one is known."""
    if not reserved:
        return ""
    lines = ["# Constants Dynamo's code loads that have no literal form, read here as globals",
             "# (dynalens.debug() puts these very objects in the frame's globals):"]
    needs_torch = False
    body = []
    for name, value in sorted(reserved.items(), key=lambda kv: int(kv[0][len(PREFIX):])):
        text = expression(value)
        shown = _short_repr(value)
        lines.append("#   %s: %s (%s)" % (name, shown, type(value).__name__))
        if text is not None:
            needs_torch = True
            body.append("%s = %s" % (name, text))
    if needs_torch:
        body.insert(0, "import torch")
    return "\n".join(lines + body) + "\n\n"


def _short_repr(value):
    if type(value) is dict:  # e.g. a module's globals: its repr is huge and slow
        return "a dict of %d items" % len(value)
    if hasattr(value, "co_code"):
        return "the code object of %s" % getattr(value, "co_qualname", value.co_name)
    try:
        text = repr(value)
    except Exception:
        text = "<%s object>" % type(value).__name__
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."
