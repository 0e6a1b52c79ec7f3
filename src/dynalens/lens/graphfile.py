"""An FX graph's readable text (from torch's structured trace) -> a module that runs on its own.

torch logs every stage's graph as `GraphModule.print_readable` text: a class whose `forward` is
the graph, but without the imports it needs (`torch`, `device`, `fx_pytree`, ...), and for AOT
and Inductor stages named `<lambda>`, which is no Python name. This module makes that text a
file that `python FILE` runs:

* the class keeps torch's text (so it reads as in `TORCH_LOGS=graph_code`), `<lambda>` renamed
  `GraphModule` as the reference tool does;
* the imports of the names the text uses, taken from torch's own table of names FX code may
  use (`torch.fx.graph._custom_builtins`, with a copy for a torch that lacks it);
* when every input's shape, stride, dtype and device are written in its annotation
  (`"f32[10][1]cpu"`) and `forward` reads nothing from `self`, a `__main__` block that builds
  inputs of exactly those and calls the graph, so `python FILE` runs it once.

What cannot be made to run (symbolic shapes, attributes or submodules of the live GraphModule,
names the text does not say how to import) is said in the file's header instead.
"""

import ast
import builtins
import re

# name -> import statement, for a torch without torch.fx.graph._custom_builtins (all of 2.x has
# it; these are its entries in 2.13 and 2.15)
_FALLBACK_IMPORTS = {
    "inf": "from math import inf",
    "nan": "from math import nan",
    "NoneType": "NoneType = type(None)",
    "torch": "import torch",
    "device": "from torch import device",
    "fx_pytree": "import torch.fx._pytree as fx_pytree",
    "pytree": "import torch.utils._pytree as pytree",
}

# "f32[10, 4][4, 1]cpu": dtype abbreviation, sizes, strides, device (torch's verbose FX text)
_TENSOR_ANNOTATION = re.compile(
    r"^(?P<dtype>[a-z0-9]+)\[(?P<size>[^\]]*)\]\[(?P<stride>[^\]]*)\](?P<device>[a-z]+(?::\d+)?)$")


class GraphFile:
    """The text of one graph file and why `python FILE` does or does not call the graph."""

    def __init__(self, text, runnable, reason):
        self.text = text
        self.runnable = runnable    # True: `python FILE` calls the graph on example inputs
        self.reason = reason        # why not, when not (one line)


def _known_imports():
    try:
        from torch.fx.graph import _custom_builtins

        table = {name: entry.import_str for name, entry in _custom_builtins.items()}
        if table:
            return table
    except Exception:
        pass
    return dict(_FALLBACK_IMPORTS)


def _dtype_names():
    """abbreviation ("f32") -> (torch attribute name, is floating or complex)."""
    try:
        import torch
        from torch.fx.graph import dtype_abbrs
    except Exception:
        return {}
    names = {}
    for dtype, abbr in dtype_abbrs.items():
        attr = str(dtype).replace("torch.", "")
        if getattr(torch, attr, None) is dtype:
            names[abbr] = (attr, dtype.is_floating_point or dtype.is_complex)
    return names


def _free_names(tree):
    """Names the module reads but never binds (builtins aside), in order of first use."""
    bound, used = set(dir(builtins)), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                used.append(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    seen, out = set(), []
    for name in used:
        if name not in bound and name not in seen:
            seen.add(name)
            out.append(name)
    return out


def _graph_class(tree):
    return next((n for n in tree.body if isinstance(n, ast.ClassDef)), None)


def _example_inputs(cls):
    """Source of one expression per forward input, or (None, why not)."""
    forward = next((n for n in cls.body if isinstance(n, ast.FunctionDef)
                    and n.name == "forward"), None)
    if forward is None:
        return None, "the class has no forward method"
    for node in ast.walk(forward):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            return None, ("forward reads self.%s (a parameter, buffer, submodule or pytree spec "
                          "of the live GraphModule), which this text does not hold" % node.attr)
    args = forward.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        return None, "forward takes *args/**kwargs"
    dtypes = _dtype_names()
    exprs = []
    for arg in args.args[1:]:
        ann = arg.annotation
        text = ann.value if isinstance(ann, ast.Constant) and isinstance(ann.value, str) else None
        m = _TENSOR_ANNOTATION.match(text or "")
        if m is None and (text or "").startswith("Sym("):
            return None, ("input %s is a symbolic size (%s; the graph was compiled for dynamic "
                          "shapes): call it with inputs of your own" % (arg.arg, text))
        if m is None:
            return None, ("input %s has no concrete tensor annotation (%s)"
                          % (arg.arg, text if text is not None else "none"))
        try:
            size = [int(s) for s in m.group("size").split(",") if s.strip()]
            stride = [int(s) for s in m.group("stride").split(",") if s.strip()]
        except ValueError:
            return None, "input %s has a symbolic shape (%s): call the graph with your own " \
                         "inputs" % (arg.arg, text)
        if m.group("dtype") not in dtypes:
            return None, "input %s has a dtype this torch does not name (%s)" % (
                arg.arg, m.group("dtype"))
        attr, floating = dtypes[m.group("dtype")]
        fill = "normal_()" if floating else "zero_()"
        exprs.append("torch.empty_strided(%r, %r, dtype=torch.%s, device=%r).%s" % (
            tuple(size), tuple(stride), attr, m.group("device"), fill))
    return exprs, None


def graph_file(payload, header_lines=(), filename="THIS_FILE"):
    """A GraphFile for one stage's payload, to be written as `filename`; never raises (text
    that does not parse is kept as comments, and says so)."""
    text = payload if payload.endswith("\n") else payload + "\n"
    text = re.sub(r"^class <lambda>\(", "class GraphModule(", text, flags=re.M)
    header = "".join("# %s\n" % h for h in header_lines)
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        body = "".join("# " + ln + "\n" for ln in text.splitlines())
        return GraphFile(header + "# (torch's text does not parse as Python: %s; kept as "
                         "comments)\n" % exc.msg + body, False, "not Python")
    known = _known_imports()
    free = _free_names(tree)
    imports = [known["torch"] if "torch" in known else "import torch"]
    imports += [known[n] for n in free if n in known and n != "torch"]
    unknown = [n for n in free if n not in known]
    cls = _graph_class(tree)
    reason = None
    exprs = None
    if cls is None:
        reason = "no class in torch's text"
    elif unknown:
        reason = ("it uses names torch's text does not say how to import (%s): objects of the "
                  "compiling process" % ", ".join(unknown))
    else:
        exprs, reason = _example_inputs(cls)
    lines = [header]
    if exprs is not None:
        lines.append("# `python %s` runs it once on example inputs of the captured shapes "
                     "(the block at the end).\n" % filename)
    else:
        lines.append("# `python %s` defines the class but does not call it: %s.\n"
                     % (filename, reason))
    lines.append("\n".join(dict.fromkeys(imports)) + "\n\n")
    lines.append(text)
    if exprs is not None:
        lines.append(_main_block(cls.name, exprs))
    return GraphFile("".join(lines), exprs is not None, reason)


_MAIN_BLOCK = """

if __name__ == "__main__":
    # Runs the graph once on inputs of the shapes, strides, dtypes and devices it was
    # captured with (random floats; integer and bool inputs are zeros) and prints what
    # it returns.
    def _describe(value):
        if isinstance(value, torch.Tensor):
            return "tensor%s %s" % (tuple(value.shape), str(value.dtype).replace("torch.", ""))
        if isinstance(value, (tuple, list)):
            return "(%s)" % ", ".join(_describe(v) for v in value)
        return repr(value)

    example_inputs = [
INPUTS
    ]
    print(_describe(CLASS()(*example_inputs)))
"""


def _main_block(cls_name, exprs):
    inputs = "".join("        %s,\n" % e for e in exprs).rstrip("\n")
    return _MAIN_BLOCK.replace("INPUTS", inputs, 1).replace("CLASS", cls_name, 1)
