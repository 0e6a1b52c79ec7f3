"""File-system primitives that let several processes share one dump folder safely.

Processes (multiprocessing workers, torchrun ranks, two notebooks) may dump into the same
folder at once. Three rules keep that safe: a file only ever appears complete (written to a
private temporary name, then renamed over the target, which POSIX makes atomic); a numbered
name is *claimed* by exclusive creation before anything is written to it, so two processes never
pick the same number; and read-modify-write of shared files happens under an advisory lock.
"""

import contextlib
import itertools
import json
import os

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; single-process use stays safe
    fcntl = None


def write_text(path, text):
    """Write `text` to `path` so readers see either the old file or the whole new one."""
    _write(path, text.encode("utf-8"))


def write_bytes(path, data):
    """`write_text` for binary data (marshalled code objects)."""
    _write(path, bytes(data))


def _write(path, data):
    directory = os.path.dirname(path) or "."
    fd, tmp = _private_file(directory)
    try:
        # no fsync: the rename is what makes the file appear whole to other processes;
        # surviving a power cut is not worth its cost (a quarter second per 30 files)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


_PRIVATE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                  | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_private_numbers = itertools.count()


def _private_file(directory):
    """(fd, path) of a new file in ``directory`` that no one else has, as
    ``tempfile.mkstemp(prefix=".tmp-", suffix=".part")`` makes it (exclusive creation, mode
    0600), named by this process's id and a counter rather than mkstemp's random letters,
    which cost more than the write itself (a dump writes dozens of files at the end of a
    block)."""
    while True:
        path = os.path.join(directory, ".tmp-%d-%d.part" % (os.getpid(), next(_private_numbers)))
        try:
            return os.open(path, _PRIVATE_FLAGS, 0o600), path
        except FileExistsError:   # (left by a process that had this id before)
            continue


def claim(directory, make_name, start=0):
    """Claim the first free numbered name: return (n, path) with `make_name(n)` now ours.

    The claim is an empty file made with O_EXCL; the caller later replaces it with the real
    content through `write_text`. A name some other process already made is skipped.
    """
    n = start
    while True:
        path = os.path.join(directory, make_name(n))
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            n += 1
            continue
        os.close(fd)
        return n, path


def claim_exact(directory, name):
    """Claim one specific name; True if it was free (now ours), False if taken."""
    try:
        fd = os.open(os.path.join(directory, name), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    os.close(fd)
    return True


@contextlib.contextmanager
def locked(path):
    """Hold an exclusive advisory lock on `path` (created if missing) for the block."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def update_json(path, update):
    """Read the JSON at `path` (or None), pass it to `update`, write its result atomically.

    Runs under `<path>.lock`, so concurrent updaters serialise and none loses the other's data.
    Returns what `update` returned.
    """
    with locked(path + ".lock"):
        current = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                current = json.load(fh)
        new = update(current)
        write_text(path, json.dumps(new, indent=1, sort_keys=False) + "\n")
        return new
