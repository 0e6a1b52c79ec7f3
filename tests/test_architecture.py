"""The shape of src/dynalens, checked from its source with ``ast`` (nothing is imported).

No import cycles: a module imports only what sits below it. Every import counts, relative or
absolute, at the top or inside a function (a function-local import that only dodges a cycle is
still a cycle: the two modules cannot be read, tested or moved apart). Issue 12.
"""

import ast
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(os.path.dirname(HERE), "src", "dynalens")


def modules(package_dir):
    """{dotted module name: path} of every .py file under ``package_dir``."""
    root = os.path.dirname(package_dir)
    found = {}
    for dirpath, dirnames, filenames in os.walk(package_dir):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for filename in filenames:
            if filename.endswith(".py"):
                path = os.path.join(dirpath, filename)
                dotted = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                if dotted.endswith(".__init__"):
                    dotted = dotted[:-len(".__init__")]
                found[dotted] = path
    return found


def _imported_names(module, path, node):
    """The dotted names an Import / ImportFrom node in ``module`` may load (``from a import b``
    may load the module ``a.b``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        parts = module.split(".")
        if not path.endswith("__init__.py"):
            parts = parts[:-1]  # relative to the package the module is in
        parts = parts[:len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    else:
        base = node.module
    return [base] + [base + "." + alias.name for alias in node.names]


def import_graph(package_dir):
    """{module: set of modules of the same package it imports}, every import included."""
    found = modules(package_dir)
    graph = {}
    for module, path in found.items():
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), path)
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name in _imported_names(module, path, node):
                    while name and name not in found:  # a name inside a module: the module
                        name = name.rpartition(".")[0]
                    if name and name != module:
                        edges.add(name)
        graph[module] = edges
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(start):
        # iterative: (node, iterator over its successors)
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def describe(component, graph):
    members = set(component)
    return "cycle among %s:\n%s" % (", ".join(component), "\n".join(
        "  %s -> %s" % (m, ", ".join(sorted(graph[m] & members))) for m in component))


def test_no_import_cycles_in_dynalens():
    graph = import_graph(PACKAGE)
    # the graph sees imports of every kind (a graph that saw none would pass vacuously)
    assert "dynalens.decompiler.statements" in graph["dynalens.decompiler.render"]
    assert "dynalens.decompiler.errors" in graph["dynalens"]
    found = cycles(graph)
    assert not found, "\n".join(describe(c, graph) for c in found)


def test_the_check_finds_a_cycle_through_a_function_local_relative_import(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from .sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from .. import a\n")
    (package / "sub" / "c.py").write_text("import pkg.sub.b\n")
    graph = import_graph(str(package))
    assert cycles(graph) == [["pkg.a", "pkg.sub.b"]]
    assert "pkg.sub.b -> pkg.a" in describe(["pkg.a", "pkg.sub.b"], graph)


# -- no version check in structuring code -------------------------------------------------------

DECOMPILER = os.path.join(PACKAGE, "decompiler")

# Modules below structuring (or beside it) that may ask which CPython runs: the profile itself,
# opcode tables and normalization, the verifier and its dataflow check (bytecode facts; verify.py
# also runs alone, without the profile), the unparser (the running ``ast``), and the front door
# (messages naming the version of a .pyc).
MAY_COMPARE_VERSIONS = frozenset([
    "profile", "decode", "instructions", "verify", "dataflow", "fast_unparse", "api",
])


def _is_version_tuple(node):
    return isinstance(node, ast.Tuple) and len(node.elts) >= 2 and all(
        isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts) and \
        node.elts[0].value == 3


def version_checks(path):
    """(line, text) of every place in the file at ``path`` that asks which Python runs:
    ``sys.version_info``, a ``PY`` name (instructions.PY), ``sys.hexversion``, or a comparison
    with a ``(3, N)`` tuple."""
    with open(path, "rb") as handle:
        source = handle.read().decode("utf-8")
    tree = ast.parse(source, path)
    lines = source.splitlines()
    found = set()
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Attribute) and node.attr in ("version_info", "hexversion"):
            hit = True
        elif isinstance(node, ast.Name) and node.id in ("PY", "version_info", "hexversion"):
            hit = True
        elif isinstance(node, ast.alias) and node.name in ("PY", "version_info", "hexversion"):
            hit = True
        elif isinstance(node, ast.Compare) and any(
                _is_version_tuple(n) for n in [node.left] + node.comparators):
            hit = True
        if hit:
            line = getattr(node, "lineno", None)
            if line is None:  # an alias before 3.10 has no position: its import statement's
                line = next(n.lineno for n in ast.walk(tree)
                            if isinstance(n, ast.ImportFrom) and node in n.names)
            found.add((line, lines[line - 1].strip()))
    return sorted(found)


def test_structuring_code_asks_the_profile_not_the_version():
    found = []
    names = sorted(f[:-3] for f in os.listdir(DECOMPILER) if f.endswith(".py"))
    assert {"statements", "branches", "handlers", "patterns", "render"} <= set(names)
    for module in names:
        if module in MAY_COMPARE_VERSIONS or module == "__init__":
            continue
        for line, text in version_checks(os.path.join(DECOMPILER, module + ".py")):
            found.append("decompiler/%s.py:%d: %s" % (module, line, text))
    assert not found, "version checks outside the profile (name the fact in " \
        "decompiler/profile.py and ask PROFILE):\n" + "\n".join(found)


def test_the_version_check_finder_sees_every_spelling(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "import sys\n"
        "from .instructions import PY\n"
        "A = sys.version_info >= (3, 12)\n"
        "B = (3, 12) <= PY < (3, 14)\n"
        "C = x[:2] == (3, 11)\n"
        "D = PROFILE.cold_handlers and (1, 2) < y\n")
    assert [line for line, _ in version_checks(str(path))] == [2, 3, 4, 5]


# -- no class assembled from mixins ------------------------------------------------------------


def classes_with_bases(path):
    """(name, [base names]) of every class statement in the file at ``path``."""
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read(), path)
    return [(node.name, [ast.dump(b) for b in node.bases])
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]


def test_no_decompiler_class_is_assembled_from_mixins():
    # the walker is one class over its core (statements.StatementWalker(StackMachine)); what it
    # recognises are modules of functions in the registry (registry.py, recognisers.py), not
    # mixins: each family is read, tested and ordered on its own (issue 12)
    found = []
    seen = 0
    for module, path in sorted(modules(DECOMPILER).items()):
        for name, bases in classes_with_bases(path):
            seen += 1
            if len(bases) > 1:
                found.append("%s.%s has %d bases" % (module, name, len(bases)))
            if name.endswith("Mixin"):
                found.append("%s.%s is a mixin" % (module, name))
    assert seen > 20  # (the check reads the classes; one that read none would pass vacuously)
    assert not found, "\n".join(found)


def test_the_mixin_check_sees_several_bases(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("class A(object):\n    pass\n\n\nclass B(A, dict):\n    pass\n")
    assert [(name, len(bases)) for name, bases in classes_with_bases(str(path))] == \
        [("A", 1), ("B", 2)]
