"""install()/uninstall(): decompiled source in Dynamo's bytecode log.

With `TORCH_LOGS="+bytecode"` Dynamo logs the ORIGINAL and MODIFIED bytecode of every frame it
compiles as `dis` listings. After `install()`, a bytecode hook adds, to the same logger
(`torch._dynamo.convert_frame`, artifact "bytecode"), the modified bytecode as Python source,
decompiled by dynalens. The hook does work only when that log is enabled, so an installed lens
costs nothing otherwise; it never changes the code Dynamo installs.
"""

import logging as _logging

_handle = []
BYTECODE_LOGGER = "torch._dynamo.convert_frame"


def _bytecode_logger():
    import torch._dynamo.convert_frame as convert_frame

    return getattr(convert_frame, "bytecode_log", None) or _logging.getLogger(BYTECODE_LOGGER)


def _hook(code, new_code):
    try:
        log = _bytecode_logger()
        if not log.isEnabledFor(_logging.DEBUG):
            return None
        from .noise import strip_profiler_bookkeeping
        from .source import function_source

        name = new_code.co_name
        clean, removed = strip_profiler_bookkeeping(new_code)
        res = function_source(clean, name, code.co_filename)
        status = "verified exact" if res.verified else (
            "NOT exact: %s" % res.difference if res.decompiled else "could not decompile")
        if removed:
            status += "; %d profiler bookkeeping calls left out" % removed
        log.debug("MODIFIED BYTECODE %s %s line %s, decompiled by dynalens (%s):\n%s",
                  code.co_name, code.co_filename, code.co_firstlineno, status, res.text)
    except Exception:  # logging must never break compilation
        pass
    return None


def install():
    """Register the hook (idempotent)."""
    if _handle:
        return
    import torch._dynamo.convert_frame as convert_frame

    _handle.append(convert_frame.register_bytecode_hook(_hook))


def uninstall():
    """Remove the hook; a no-op when not installed."""
    while _handle:
        _handle.pop().remove()


def installed():
    return bool(_handle)
