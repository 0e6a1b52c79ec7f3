"""Real code objects for the tests that compare a decompiler shortcut with the long way: the
code of stdlib modules, compiled from their source files, and of functions the test writes.
(Shortcuts are proved on code users run, not only on examples written for them.)"""

from dynalens.decompiler import render
from dynalens.decompiler.errors import DecompilationError


def code_objects(sources, extra=(), functions_only=False):
    """Every code object in the source files ``sources`` (modules or paths) and in the code
    objects ``extra``, nested ones included; with ``functions_only`` the functions alone
    (module and class bodies are decompiled with the functions they hold)."""
    todo = []
    for source in sources:
        path = getattr(source, "__file__", source)
        with open(path) as handle:
            todo.append(compile(handle.read(), path, "exec"))
    todo.extend(extra)
    codes = []
    while todo:
        code = todo.pop()
        if not functions_only or code.co_flags & 1:  # (CO_OPTIMIZED: a function)
            codes.append(code)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
    return codes


def decompiled(code):
    """decompile_code's text for ``code``, or the message of the DecompilationError it raises
    (a function the walk does not read is still an answer to compare)."""
    try:
        return render.decompile_code(code)
    except DecompilationError as error:
        return str(error)
