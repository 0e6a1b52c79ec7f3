"""Dynamo's guard sets as valid, readable Python predicates.

torch prints each guard as a "code part", but several are not Python (`... ids == None`,
`___check_global_state() against {...}`, `..., type=<class 'module'>`, `check_tensor(...,
DispatchKeySet(CPU, ...), ...)` with names that exist nowhere). We translate each part into
an expression over the frame's locals `L` and globals `G` that calls small helpers defined here,
so the dumped guard function runs on its own: `__guard_0_for_f(L, G)` is True exactly when
the cached code would be used.

Inside the process that compiled, the live closure variables of the guard (the same objects
torch's checks use) take precedence over the stand-alone helpers.
"""

import json
import re

GUARD_ARGS = "L, G, **___kwargs_ignored"

_TYPE_SUFFIX = re.compile(r",\s*type=<class '([^']*)'>(?:\s*\(HINT:[^)]*\))?\s*$")
_GLOBAL_STATE = re.compile(r"^___check_global_state\(\)\s+against\s+(\{.*\})\s*$", re.S)
_HOOKS_IDS = re.compile(
    r"^torch\._functorch\.aot_autograd\.utils\.top_saved_tensors_hooks ids == (.*)$")
_CHECK_TENSOR = re.compile(r"^check_tensor\((?P<name>.+?), (?P<pytype>[\w.]+), "
                           r"DispatchKeySet\((?P<keys>[^)]*)\), (?P<rest>.*)\)$")


class GuardPart:
    """One guard: the Python expression we run, torch's text, and a note if we changed it."""

    def __init__(self, expr, original, note=None, translated=True):
        self.expr = expr
        self.original = original
        self.note = note
        self.translated = translated


def translate_part(part):
    """torch's code part -> GuardPart whose `expr` is a valid Python expression."""
    text = part.strip()
    note = None
    m = _TYPE_SUFFIX.search(text)
    if m:
        text = text[:m.start()]
        note = "value type %s" % m.group(1)
    m = _GLOBAL_STATE.match(text)
    if m:
        state = m.group(1)
        try:
            json.loads(state)
        except ValueError:
            return GuardPart("___lens_torch_check(L)", part,
                             "unparsed global state; checked by torch's own guard",
                             translated=False)
        return GuardPart("___check_global_state_against(%r)" % state, part,
                         "grad mode, autocast, default dtype, ... as at compile time")
    m = _HOOKS_IDS.match(text)
    if m:
        return GuardPart("___saved_tensors_hooks_ids() == %s" % m.group(1), part,
                         "the innermost saved-tensors hooks are the same")
    m = _CHECK_TENSOR.match(text)
    if m:
        keys = [k.strip() for k in m.group("keys").split(",") if k.strip()]
        expr = "___check_tensor(%s, %r, %r, %s)" % (
            m.group("name"), m.group("pytype"), tuple(keys), m.group("rest"))
        if _is_expression(expr):
            return GuardPart(expr, part, note)
    if _is_expression(text):
        return GuardPart(text, part, note)
    return GuardPart("___lens_torch_check(L)", part,
                     "no Python form; checked by torch's own guard", translated=False)


def _is_expression(text):
    try:
        compile(text, "<guard>", "eval")
        return True
    except SyntaxError:
        return False


def guard_function_source(name, parts, tree_text=None, failures=(), header_lines=()):
    """Source of a module defining `def name(L, G, **___kwargs_ignored) -> bool`."""
    translated = [translate_part(p) for p in parts]
    lines = ["# " + h for h in header_lines]
    lines += [
        "# Call %s(L, G) with the frame's locals L and globals G (dicts): it returns True" % name,
        "# exactly when this compiled version of the frame would run, False when a call with",
        "# those values would fail a guard (and recompile or fall back).",
        "# Helpers (___check_tensor, ___check_obj_id, ...) come from dynalens.lens.guards; in",
        "# the compiling process the live objects torch's own guard uses replace them.",
        "from dynalens.lens.guards import runtime_namespace as ___runtime_namespace",
        "",
        "globals().update({k: v for k, v in ___runtime_namespace().items()"
        " if k not in globals()})",
        "",
    ]
    if failures:
        lines.append("# Guard failures seen later in the run (why other versions were compiled):")
        lines += ["#   " + f for f in failures]
        lines.append("")
    lines.append("def %s(%s):" % (name, GUARD_ARGS))
    if not translated:
        lines.append("    return True  # this version has no guards")
    for i, gp in enumerate(translated):
        comment = []
        if gp.original.strip() != gp.expr:
            comment.append("torch: " + " ".join(gp.original.split())[:300])
        if gp.note:
            comment.append(gp.note)
        if comment:
            for c in comment:
                lines.append("    # " + c)
        lines.append("    if not (%s):" % gp.expr)
        lines.append("        return False")
    if translated:
        lines.append("    return True")
    if tree_text:
        lines.append("")
        lines.append("# torch's guard tree, as torch prints it (not Python):")
        lines += ["#   " + ln for ln in tree_text.rstrip().splitlines()]
    return "\n".join(lines) + "\n", translated


def load_guard_function(path, name, closure_vars=None, torch_check=None):
    """Compile the dumped guard file and return its function, bound to live objects if given.

    `torch_check(L)` backs the parts that have no Python form; without it such parts raise.
    """
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    ns = {"__name__": "dynalens_guard", "__file__": path}
    if closure_vars:
        ns.update({k: v for k, v in closure_vars.items() if v is not None})
    if torch_check is not None:
        ns["___lens_torch_check"] = torch_check
    exec(compile(source, path, "exec"), ns)
    return ns[name]


# ---- stand-alone helpers, with the semantics of torch's C++ guards --------------------------

def runtime_namespace():
    """Names a guard file needs when it runs outside the process that compiled it."""
    import math

    import torch
    import torch.utils._device as utils_device

    def ___check_type_id(obj, type_id):
        return id(type(obj)) == type_id

    def ___check_obj_id(obj, obj_id):
        return id(obj) == obj_id

    def ___check_tensor(value, pytype, dispatch_keys, dtype, device=None, requires_grad=None,
                        size=None, stride=None):
        if not isinstance(value, torch.Tensor) or type(value).__qualname__ != pytype:
            return False
        keys = (torch._C._dispatch_keys(value) | torch._C._dispatch_tls_local_include_set()) \
            - torch._C._dispatch_tls_local_exclude_set()
        if _key_names(keys) != tuple(dispatch_keys):
            return False
        if value.dtype != dtype or value.device.index != device:
            return False
        if requires_grad is not None and value.requires_grad != requires_grad:
            return False
        if size is not None:
            if value.dim() != len(size):
                return False
            if any(s is not None and s != v for s, v in zip(size, value.size())):
                return False
        if stride is not None:
            if any(s is not None and s != v for s, v in zip(stride, value.stride())):
                return False
        return True

    def ___check_global_state_against(state_json):
        from torch._C._dynamo.guards import GlobalStateGuard

        now = json.loads(GlobalStateGuard().__getstate__())
        return now == json.loads(state_json)

    def ___saved_tensors_hooks_ids():
        utils = torch._functorch._aot_autograd.utils
        hooks = utils.top_saved_tensors_hooks()
        if not utils.saved_tensors_hooks_are_inlineable(hooks):
            return None
        return tuple(map(id, hooks))

    def ___check_torch_function_mode_stack():
        return len(torch.overrides._get_current_function_mode_stack()) == 0

    def check_no_aliasing(*tensors):
        ptrs = [t.untyped_storage().data_ptr() for t in tensors if isinstance(t, torch.Tensor)]
        return len(ptrs) == len(set(ptrs))

    def ___dict_contains(key, d):
        return key in d

    def ___lens_torch_check(L):
        raise NotImplementedError(
            "this guard set has a part with no Python form; it can only be checked in the "
            "process that compiled it (dynalens.lens.guards.load_guard_function(torch_check=))")

    ns = {
        "torch": torch, "math": math, "utils_device": utils_device, "inf": math.inf,
        "___check_type_id": ___check_type_id, "___check_obj_id": ___check_obj_id,
        "___check_tensor": ___check_tensor,
        "___check_global_state_against": ___check_global_state_against,
        "___saved_tensors_hooks_ids": ___saved_tensors_hooks_ids,
        "___check_torch_function_mode_stack": ___check_torch_function_mode_stack,
        "check_no_aliasing": check_no_aliasing, "___dict_contains": ___dict_contains,
        "___lens_torch_check": ___lens_torch_check,
    }
    return ns


def _key_names(keyset):
    text = repr(keyset)
    inner = text[text.index("(") + 1:text.rindex(")")] if "(" in text else ""
    return tuple(k.strip() for k in inner.split(",") if k.strip())
