"""Which CPython versions dynalens can read, and which version wrote a ``.pyc``.

Bytecode changes meaning with every CPython minor version, and the decompiler only has opcode
tables for 3.8 to 3.15. Running it anywhere else, or feeding it a ``.pyc`` written by another
version, would not fail loudly by itself: opcodes would be misread and a plausible but *wrong*
program would come out. These checks turn both cases into an error that names the versions.

The magic-number table comes from CPython's own list (``Lib/importlib/_bootstrap_external.py``,
moved to ``Include/internal/pycore_magic_number.h`` in 3.14); each final value was also read off
a real interpreter's ``importlib.util.MAGIC_NUMBER`` (native 3.6-3.13, Pyodide 3.10-3.15rc1).
Alphas and betas use the numbers between one release's first and last value, so a pre-release
``.pyc`` is attributed to the release it led up to.

Pure stdlib, importable on any Python 3 (the guard must be able to run on the versions it
rejects).
"""

import sys

from .decompiler.errors import DecompilationError

__all__ = [
    "MIN_SUPPORTED",
    "MAX_SUPPORTED",
    "FINAL_MAGIC",
    "PycVersionError",
    "check_running_python",
    "check_pyc_magic",
    "is_supported",
    "other_version_advice",
    "magic_number",
    "python_version_for_magic",
    "running_version",
]

MIN_SUPPORTED = (3, 8)
MAX_SUPPORTED = (3, 15)

# (first, last, version): every magic number CPython used on the way to that release.
# 3.15 ends where CPython's list says 3.16 starts (3700): its final value is not fixed yet.
_MAGIC_RANGES = (
    (3360, 3379, "3.6"),
    (3390, 3394, "3.7"),
    (3400, 3413, "3.8"),
    (3420, 3425, "3.9"),
    (3430, 3439, "3.10"),
    (3450, 3495, "3.11"),
    (3500, 3531, "3.12"),
    (3550, 3571, "3.13"),
    (3600, 3627, "3.14"),
    (3650, 3699, "3.15"),
)

# The value each release (and the 3.15 release candidate) writes; read off real interpreters.
FINAL_MAGIC = {
    "3.6": 3379,
    "3.7": 3394,
    "3.8": 3413,
    "3.9": 3425,
    "3.10": 3439,
    "3.11": 3495,
    "3.12": 3531,
    "3.13": 3571,
    "3.14": 3627,
    "3.15": 3666,  # 3.15.0rc1
}


class PycVersionError(DecompilationError, ValueError):
    """A ``.pyc`` written by a different Python version than the running one.

    It is a ValueError (bad input) and a DecompilationError (callers that catch the decompiler's
    one error type keep working).
    """


def running_version(version_info=None):
    """``"3.12"``-style text for the running (or given) interpreter version."""
    info = sys.version_info if version_info is None else version_info
    return "%d.%d" % (info[0], info[1])


def _full_version(info):
    text = "%d.%d.%d" % (info[0], info[1], info[2])
    level = info[3] if len(info) > 3 else "final"
    serial = info[4] if len(info) > 4 else 0
    short = {"alpha": "a", "beta": "b", "candidate": "rc"}.get(level)
    if short:
        text += "%s%d" % (short, serial)
    return text


def check_running_python(version_info=None, implementation=None):
    """Raise RuntimeError unless this is a CPython the decompiler has opcode tables for.

    ``version_info`` and ``implementation`` default to the running interpreter's; tests pass
    others. Other implementations (PyPy, GraalPy) compile to different bytecode even where their
    language version matches, so they are refused too.
    """
    info = sys.version_info if version_info is None else tuple(version_info)
    impl = sys.implementation.name if implementation is None else implementation
    supported = "%d.%d to %d.%d" % (MIN_SUPPORTED + MAX_SUPPORTED)
    if impl != "cpython":
        raise RuntimeError(
            "dynalens decompiles CPython bytecode (CPython %s); this interpreter is %s %s, whose "
            "bytecode differs" % (supported, impl, _full_version(info)))
    if not (MIN_SUPPORTED <= tuple(info[:2]) <= MAX_SUPPORTED):
        raise RuntimeError(
            "dynalens supports CPython %s; this is CPython %s. Run it with a supported "
            "interpreter (the bytecode of other versions would be misread)"
            % (supported, _full_version(info)))


def magic_number(data):
    """The 16-bit magic number at the start of a ``.pyc`` header (or of MAGIC_NUMBER)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("magic_number() needs bytes (the start of a .pyc file), got %s"
                        % type(data).__name__)
    data = bytes(data[:4])
    if len(data) < 2:
        raise ValueError("a .pyc header starts with a 4-byte magic number; got %d byte(s)"
                         % len(data))
    return data[0] | (data[1] << 8)


def python_version_for_magic(data):
    """``"3.11"``-style version that wrote a ``.pyc`` starting with ``data``, or None.

    ``data`` is at least the first 2 bytes of the file (the whole header or file is fine). When
    4 or more bytes are given, bytes 2-3 must be ``b"\\r\\n"`` as in every CPython 3 ``.pyc``;
    anything else is not a ``.pyc`` and gives None, as does an unknown number.
    """
    number = magic_number(data)
    if len(data) >= 4 and bytes(data[2:4]) != b"\r\n":
        return None
    for first, last, version in _MAGIC_RANGES:
        if first <= number <= last:
            return version
    return None


def check_pyc_magic(data, path=None, running_magic=None):
    """Raise PycVersionError unless ``data`` (a ``.pyc`` header) is the running version's.

    ``running_magic`` defaults to ``importlib.util.MAGIC_NUMBER``. The message names the file,
    the version that wrote it (or its raw magic number when unknown) and the running version.
    """
    if running_magic is None:
        import importlib.util
        running_magic = importlib.util.MAGIC_NUMBER
    where = " %s" % path if path is not None else ""
    if len(data) < 4:
        raise PycVersionError("%s is too short to be a .pyc file (%d bytes; the header alone is "
                              "16)" % ((path or "the data"), len(data)))
    if bytes(data[:4]) == bytes(running_magic[:4]):
        return
    running = python_version_for_magic(running_magic) or running_version()
    written = python_version_for_magic(data)
    if written is None:
        raise PycVersionError(
            "the file%s is not a CPython 3.6-3.15 .pyc (magic number %d, bytes %r); this is "
            "Python %s" % (where, magic_number(data), bytes(data[:4]), running))
    if written == running:
        raise PycVersionError(
            "the .pyc%s was written by a pre-release of Python %s (magic number %d); this "
            "Python %s expects magic number %d: recompile it with this interpreter"
            % (where, written, magic_number(data), running, magic_number(running_magic)))
    raise PycVersionError("the .pyc%s was written by Python %s, but this is Python %s: %s"
                          % (where, written, running, other_version_advice(written)))


def is_supported(version):
    """Is ``version`` ("3.11"-style text) one whose bytecode dynalens reads (3.8-3.15)?"""
    try:
        parts = tuple(int(p) for p in str(version).split(".")[:2])
    except ValueError:
        return False
    return MIN_SUPPORTED <= parts <= MAX_SUPPORTED


def other_version_advice(written):
    """What to do with a .pyc that ``written`` ("2.7", "3.12", None) wrote, as a clause.

    A supported version is decompiled by running dynalens under that Python; an unsupported
    one cannot be (dynalens itself does not run there, and has no opcode tables for it).
    """
    supported = "%d.%d-%d.%d" % (MIN_SUPPORTED + MAX_SUPPORTED)
    if written is not None and is_supported(written):
        return ("decompile it with Python %s (bytecode differs between versions)" % written)
    return ("%s bytecode is not supported: dynalens reads CPython %s bytecode only"
            % ("Python %s" % written if written else "this version's", supported))
