"""dynalens: see what torch.compile did.

The public API keeps the names users know from depyf (``decompile``, ``Decompiler``,
``prepare_debug``, ``debug``, ``install``, ``uninstall``) so their habits carry over.

Importing dynalens never imports torch: the decompiler half is pure Python and runs on
CPython 3.8 to 3.15 (Pyodide included); the torch.compile lens is loaded on first use.
"""

from .decompiler.errors import DecompilationError

__version__ = "0.1.0"

__all__ = [
    "DecompilationError",
    "Decompiler",
    "decompile",
    "verify",
    "VerifyResult",
    "prepare_debug",
    "debug",
    "install",
    "uninstall",
    "explain",
]

# name -> module that defines it; resolved lazily so that `import dynalens` stays cheap
# and never pulls in torch.
_LAZY = {
    "Decompiler": "dynalens.decompiler.api",
    "decompile": "dynalens.decompiler.api",
    "verify": "dynalens.decompiler.verify",
    "VerifyResult": "dynalens.decompiler.verify",
    "prepare_debug": "dynalens.lens.api",
    "debug": "dynalens.lens.api",
    "install": "dynalens.lens.api",
    "uninstall": "dynalens.lens.api",
    "explain": "dynalens.report.api",
}


def __getattr__(name):
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError("module 'dynalens' has no attribute %r" % name)
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__():
    # a lazy name, once used, is also in globals(): list each name once
    return sorted(set(globals()) | set(_LAZY))
