"""Dynamo's code objects -> dumped source files, with the decompiler, the verifier and a fallback.

The lens runs inside a user's program, so nothing here may raise: a code object the decompiler
cannot handle becomes an annotated disassembly (valid Python: the listing sits in a docstring)
and one warning. A decompiled function is renamed to its dump name (`__transformed_code_0_for_f`)
and then verified *as written in the file*, so the code object compiled from the file is known
to do exactly what Dynamo's does before `debug()` swaps it in.
"""

import contextlib
import dis
import inspect
import os
import re
import threading

from dynalens.decompiler.api import decompile

from .generated import renamed_lambda

PROFILER_MARK = "  # dynalens: profiler bookkeeping (torch's record_pregraph_bytecode)"
_PROFILER_RE = re.compile(r"record_pregraph_bytecode_(enter|exit)")

DATAFLOW_NOTE = (
    "# Verified: the same operations on the same values in the same order as the bytecode\n"
    "# (no source compiles to the bytecode itself: values it leaves on the stack between\n"
    "# statements are held in __temp_N variables here).\n")

READABLE_NOTE = (
    "# Verified: the same operations on the same values in the same order as the bytecode,\n"
    "# rewritten to read like source (a value used once is written where it is used; the\n"
    "# lists handed to a resume function are written as what they hold when it is called;\n"
    "# values are named after the resume function's parameters); each statement ends with\n"
    "# the line of your source it comes from.\n")

# code objects that failed to decompile are saved here for the decompiler's own tests
FAILED_CODES_DIR = os.environ.get("DYNALENS_FAILED_CODES_DIR", "/tmp/dynamo_codes")


class SourceResult:
    """The text for one dumped code object and what we know about it."""

    def __init__(self, text, decompiled, verified, error=None, compiled=None, difference=None,
                 candidate=None, verified_by=None, reserved=None):
        self.text = text
        # name -> object: constants with no literal form that `text` reads as globals
        # (see constants.py); debug() puts them in the frame's globals when it swaps
        self.reserved = reserved or {}
        self.verified_by = verified_by    # "bytecode" or "dataflow" (see verify's `how`)
        self.candidate = candidate        # what verify compared (also when not exact)
        self.decompiled = decompiled
        self.verified = verified
        self.error = error
        self.compiled = compiled          # code object compiled from `text` (when verified)
        self.difference = difference      # verify's first difference (when not exact)

    @property
    def swappable(self):
        return self.compiled is not None


def signature_of(code):
    """A `def` parameter list that matches the code object's arguments."""
    names = list(code.co_varnames)
    pos = code.co_argcount
    posonly = getattr(code, "co_posonlyargcount", 0)
    kwonly = code.co_kwonlyargcount
    parts = names[:pos]
    if posonly:
        parts.insert(posonly, "/")
    i = pos
    star = None
    if code.co_flags & inspect.CO_VARARGS:
        star = "*" + names[pos + kwonly]
    if star or kwonly:
        parts.append(star or "*")
    parts += names[i:i + kwonly]
    if code.co_flags & inspect.CO_VARKEYWORDS:
        parts.append("**" + names[pos + kwonly + (1 if star else 0)])
    return ", ".join(parts)


def _defines(src, name):
    """Does a line of ``src`` define ``name`` (``def name(``, maybe indented or async)?"""
    if "\ndef %s(" % name in "\n" + src:
        return True   # (the usual case, found without compiling a pattern for this name)
    return re.search(r"^\s*(async\s+)?def\s+%s\s*\(" % re.escape(name), src, re.M) is not None


def _rename_def(text, old, new):
    pattern = re.compile(r"^(\s*(?:async\s+)?def\s+)%s(\s*\()" % re.escape(old), re.M)
    renamed, count = pattern.subn(lambda m: m.group(1) + new + m.group(2), text, count=1)
    return renamed if count else None


def _label_noise(text):
    out = []
    for line in text.splitlines():
        if _PROFILER_RE.search(line) and "#" not in line:
            line += PROFILER_MARK
        out.append(line)
    return "\n".join(out) + "\n"


def _decompile(code, name):
    # Dynamo's code: no source compiles back to its bytecode, the dataflow check decides
    made = getattr(_DECOMPILED, "table", None)
    entry = made.get((id(code), name)) if made is not None else None
    if entry is not None and entry[0] is code:
        return entry[1]
    text = decompile(renamed_lambda(code, name), name=name, generated=True)
    if made is not None:
        made[(id(code), name)] = (code, text)
    return text


_DECOMPILED = threading.local()


@contextlib.contextmanager
def decompiled_once():
    """Within the block, :func:`_decompile` decompiles a code object under a name once.

    A resume function's own file and the full_code file of its compile decompile the same
    code object (``noise.simplify``'s, worked out once) under the same name; the text is the
    same, as decompiling depends on nothing else. Outside the block (and after it) every call
    decompiles, so nothing outlives one dump."""
    outer = getattr(_DECOMPILED, "table", None)
    if outer is None:
        _DECOMPILED.table = {}
    try:
        yield
    finally:
        if outer is None:
            _DECOMPILED.table = None


def function_source(code, name, path, header_lines=(), on_failure=None, readable=False,
                    resume_codes=()):
    """Decompile `code` into a module defining `def name(...)`, written as if at `path`.

    Returns a SourceResult. `on_failure(code, error)` is called once when decompiling fails.
    `readable`: rewrite the source with :mod:`readable` (each rewrite kept only where the file
    still verifies) and mark each statement with the user's line; `resume_codes` ({global name:
    code}) are the resume functions the code calls, whose parameters name the values passed.
    """
    from dynalens.decompiler.instructions import shared_disassembly

    # every check below verifies a candidate against the same original: decode and normalize
    # that original once (instructions.shared_disassembly), not once per candidate
    with shared_disassembly():
        return _function_source(code, name, path, header_lines, on_failure, readable,
                                resume_codes)


def _function_source(code, name, path, header_lines, on_failure, readable, resume_codes):
    from .constants import reserve_constants, restore_names, definitions

    header = "".join("# %s\n" % h for h in header_lines)
    try:
        plain, reserved = reserve_constants(code)
        src = restore_names(_decompile(plain, name), reserved)
        if not isinstance(src, str):
            raise TypeError("decompile() returned %s, not str" % type(src).__name__)
    except Exception as exc:
        save_failed_code(code)
        if on_failure is not None:
            on_failure(code, exc)
        text = header + disassembly_text(code, name, exc)
        return SourceResult(text, False, False, error="%s: %s" % (type(exc).__name__, exc))

    body = src if _defines(src, name) else _rename_def(src, code.co_name, name)
    if body is None:
        # the decompiler gave the body only: wrap it in a def with the code's signature
        indented = "".join("    " + ln + "\n" if ln.strip() else "\n" for ln in src.splitlines())
        body = "def %s(%s):\n%s" % (name, signature_of(code), indented or "    pass\n")
    rewritten = False
    text = header + _label_noise(_after_future(body, definitions(reserved)))
    result, failure = _verify(code, name, path, text, reserved)
    if readable and result:
        # only a verified faithful form is rewritten (each rewrite is checked against it)
        new_body, rewritten = _readable(code, name, path, header, body, resume_codes, reserved)
        if rewritten:
            new_text = header + _label_noise(_after_future(new_body, definitions(reserved)))
            new_result, new_failure = _verify(code, name, path, new_text, reserved)
            if new_result:
                text, result, failure = new_text, new_result, new_failure
            else:
                rewritten = False
    if result and result.how == "dataflow":
        # say so in the header, and verify the file as it will be written (lines move)
        noted = header + (READABLE_NOTE if rewritten else DATAFLOW_NOTE) + text[len(header):]
        result_noted, failure = _verify(code, name, path, noted, reserved)
        if result_noted:
            text, result = noted, result_noted
    if readable and result and result.compiled is not None:
        text, result = _with_user_lines(code, name, path, text, result, reserved)
    verified = bool(result)
    if not verified:
        save_failed_code(code, suffix="inexact")
    compiled = result.compiled if verified and _same_frame_layout(code, result.compiled) \
        else None
    difference = failure or (None if verified else result.difference)
    return SourceResult(text, True, verified, compiled=compiled, difference=difference,
                        candidate=result.compiled if result is not None else None,
                        verified_by=result.how if result is not None else None,
                        reserved=reserved)


def _readable(code, name, path, header, body, resume_codes, reserved=None):
    """(body, rewritten?): the readable form of ``body`` where it verifies, else ``body``."""
    from .constants import definitions
    from .readable import readable_source

    def check(candidate):
        result, _ = _verify(code, name, path, header + _label_noise(
            _after_future(candidate, definitions(reserved))), reserved, verdict_only=True)
        return bool(result)

    try:
        new = readable_source(body, name, code, check, resume_codes)
    except Exception:
        new = None  # the faithful form stays; the pass is an improvement, never a requirement
    return (new, True) if new else (body, False)


def _with_user_lines(code, name, path, text, result, reserved=None):
    """``text`` with each statement's user line as a trailing comment, if it still verifies
    (comments change no code, but the file is always verified as written)."""
    from .readable import line_comments

    try:
        marked = line_comments(text, name, code, result.compiled)
    except Exception:
        return text, result
    if marked == text:
        return text, result
    checked, _ = _verify(code, name, path, marked, reserved)
    return (marked, checked) if checked else (text, result)


def _after_future(body, lines):
    """`lines` put at the top of `body`, after any `from __future__` import (which must come
    first in a file: the decompiled module of a function nested in a closure starts so)."""
    if not lines:
        return body
    at = 0
    for found in re.finditer(r"^from __future__ import [^\n]*\n?", body, re.M):
        at = found.end()
    return body[:at] + lines + body[at:]


def _verify(code, name, path, text, reserved=None, verdict_only=False):
    """(VerifyResult or None, text of a failure in verify itself or None); ``verdict_only``:
    only its truth is read (a rewrite tried), see verify."""
    try:
        from dynalens.decompiler.verify import verify

        return verify(_target(code, name, path), text, temporaries=True,
                      reserved=reserved, verdict_only=verdict_only), None
    except Exception as exc:
        return None, "verify failed: %s: %s" % (type(exc).__name__, exc)


def _target(code, name, path):
    """``code`` renamed ``name`` at ``path``, as each candidate file recompiles it: the same
    object for every check of one function_source (so what verify learns of it is kept)."""
    from dynalens.decompiler.instructions import shared_cache

    made = shared_cache("lens targets")
    key = (id(code), name, path)
    if made is not None and key in made and made[key][0] is code:
        return made[key][1]
    target = code.replace(co_name=name, co_filename=path,
                          **({"co_qualname": name} if hasattr(code, "co_qualname") else {}))
    if made is not None:
        made[key] = (code, target)
    return target


def _same_frame_layout(a, b):
    """Can `b` run in place of `a`? (Dynamo checks these on every code object it installs.)"""
    if b is None:
        return False
    fields = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_freevars",
              "co_cellvars")
    if not all(getattr(a, f, None) == getattr(b, f, None) for f in fields):
        return False
    # the arguments are what torch copies into the new frame (and checks); other locals may
    # differ, e.g. temporaries of Dynamo's that the source no longer needs
    nargs = a.co_argcount + a.co_kwonlyargcount + bool(a.co_flags & inspect.CO_VARARGS) \
        + bool(a.co_flags & inspect.CO_VARKEYWORDS)
    return a.co_varnames[:nargs] == b.co_varnames[:nargs]


def disassembly_text(code, name, error):
    """Valid Python that shows an annotated disassembly when decompiling failed.

    One instruction per line, in order (`relabel.listing_lines` relies on it), so `debug()` can
    map Dynamo's code onto this file and a breakpoint on an instruction's line is hit.
    """
    rows = []
    for ins in dis.get_instructions(code):
        if ins.opname in ("CACHE", "EXTENDED_ARG", "NOP", "RESUME"):
            continue
        mark = ">>" if ins.is_jump_target else "  "
        arg = ins.argrepr or ("" if ins.arg is None else str(ins.arg))
        rows.append(("%s %5d %-28s %s" % (mark, ins.offset, ins.opname, arg)).rstrip())
    listing = "\n".join(rows).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    where = ""
    off = getattr(error, "offset", None)
    if off is not None:
        where = " at offset %s (%s)" % (off, getattr(error, "opname", "?"))
    lines = [
        "# dynalens could not decompile this code object%s:" % where,
        "#   %s: %s" % (type(error).__name__, " ".join(str(error).split())[:500]),
        "# Below is its disassembly (offset, opname, argument; >> marks jump targets), kept in",
        "# a string so this file is valid Python. Arguments: (%s)" % signature_of(code),
        "",
        "%s_disassembly = \"\"\"" % name,
        listing,
        "\"\"\"",
        "",
    ]
    return "\n".join(lines)


def save_failed_code(code, suffix="fail"):
    """Keep the code object (marshal) so the decompiler's authors can reproduce the failure."""
    try:
        import hashlib
        import marshal

        data = marshal.dumps(code)
        os.makedirs(FAILED_CODES_DIR, exist_ok=True)
        digest = hashlib.sha1(data).hexdigest()[:12]
        path = os.path.join(FAILED_CODES_DIR, "%s_%s_%s.bin" % (
            re.sub(r"\W", "_", code.co_name)[:60], suffix, digest))
        if not os.path.exists(path):
            with open(path, "wb") as fh:
                fh.write(data)
    except Exception:
        pass
