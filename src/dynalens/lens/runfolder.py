"""One run per dump folder: a new run replaces an earlier run's dump, concurrent processes join.

A dump folder describes one run. When a `prepare_debug` block opens, it decides under the
folder's index lock whether it starts a new run or joins the one in progress:

* it joins when a block of the current run is still open in another live process (spawned
  workers, torchrun ranks, a second notebook writing at the same time), or when this process
  was started from such a block (its environment carries ``DYNALENS_RUN``, set by the block
  that opened the run, so a worker that starts after a sibling finished still joins);
* otherwise the folder holds an earlier run's dump: the files its ``index.json`` lists (and
  those of its rank subfolders), the index and the report are removed, and stderr says so.
  Nothing the index does not list is touched: a dump folder may hold the user's own files.

The open blocks are listed in ``.dynalens-run.json`` (pid, host, start time); a block removes
itself when its dump is written. A listed process that no longer exists (killed) does not hold
the run open; one on another host (a shared file system) is trusted for a day.
"""

import json
import os
import socket
import sys
import time
import uuid

from . import atomic

STATE_NAME = ".dynalens-run.json"
INDEX_NAME = "index.json"
REPORT_NAME = "report.html"
ENV_VAR = "DYNALENS_RUN"
REMOTE_TRUST_S = 24 * 3600


class Slot:
    """This process's open block in a folder: what `close` needs to undo `open_block`."""

    def __init__(self, folder, run_id, env_before, replaced):
        self.folder = folder
        self.run_id = run_id
        self.env_before = env_before
        self.replaced = replaced      # summary of the dump this block replaced, or None


def open_block(folder):
    """Register a block in `folder` (an existing directory); replace an earlier run's dump."""
    folder = os.path.abspath(folder)
    index_path = os.path.join(folder, INDEX_NAME)
    with atomic.locked(index_path + ".lock"):
        state = _read_json(os.path.join(folder, STATE_NAME))
        state = state if isinstance(state, dict) and isinstance(state.get("open"), list) else {}
        open_now = [b for b in state.get("open", []) if _alive(b)]
        inherited = _inherited_run()
        replaced = None
        if state.get("run") and (open_now or inherited == state.get("run")):
            run_id = state["run"]
        else:
            replaced = remove_dump(folder)
            run_id = uuid.uuid4().hex
        open_now.append({"pid": os.getpid(), "host": socket.gethostname(),
                         "started": time.time()})
        atomic.write_text(os.path.join(folder, STATE_NAME),
                          json.dumps({"run": run_id, "open": open_now}, indent=1) + "\n")
    env_before = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = "%s:%d" % (run_id, os.getpid())
    if replaced is not None:
        sys.stderr.write("dynalens: %s held the dump of an earlier run (%s); this run replaces "
                         "it\n" % (folder, replaced))
    return Slot(folder, run_id, env_before, replaced)


def close_block(slot):
    """The block's dump is written: it no longer holds the run open."""
    if os.environ.get(ENV_VAR) == "%s:%d" % (slot.run_id, os.getpid()):
        if slot.env_before is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = slot.env_before
    path = os.path.join(slot.folder, STATE_NAME)
    with atomic.locked(os.path.join(slot.folder, INDEX_NAME) + ".lock"):
        state = _read_json(path)
        if not isinstance(state, dict) or state.get("run") != slot.run_id:
            return
        me = (os.getpid(), socket.gethostname())
        state["open"] = [b for b in state.get("open", [])
                         if (b.get("pid"), b.get("host")) != me]
        atomic.write_text(path, json.dumps(state, indent=1) + "\n")


def remove_dump(folder, depth=0):
    """Remove the dump `folder/index.json` describes; return a one-line summary (or None).

    Only what the index lists goes: its files, its rank subfolders' dumps (then the subfolder
    if it is left empty), the report and the index itself.
    """
    index_path = os.path.join(folder, INDEX_NAME)
    index = _read_json(index_path)
    if not isinstance(index, dict) or index.get("format") != "dynalens-dump":
        return None
    removed = 0
    for f in index.get("files") or []:
        rel = f.get("path") if isinstance(f, dict) else None
        if _removable(rel) and _unlink(os.path.join(folder, rel)):
            removed += 1
    for sub in index.get("subdumps") or []:
        rel = sub.get("path") if isinstance(sub, dict) else sub
        if depth < 2 and _removable(rel):
            sub_dir = os.path.join(folder, rel)
            if remove_dump(sub_dir, depth + 1) is not None:
                for leftover in (INDEX_NAME + ".lock", STATE_NAME):
                    _unlink(os.path.join(sub_dir, leftover))
                try:
                    os.rmdir(sub_dir)
                except OSError:
                    pass
    _unlink(os.path.join(folder, REPORT_NAME))
    _unlink(index_path)
    processes = index.get("processes") or []
    finished = max((p.get("finished") or "" for p in processes if isinstance(p, dict)),
                   default="")
    return "%d compiles, %d files%s%s" % (
        len(index.get("compiles") or []), removed,
        ", %d rank folders" % len(index.get("subdumps")) if index.get("subdumps") else "",
        ", finished %s" % finished if finished else "")


def _removable(rel):
    """A path the index may name: relative, inside the folder."""
    if not isinstance(rel, str) or not rel or os.path.isabs(rel):
        return False
    return ".." not in rel.replace("\\", "/").split("/")


def _unlink(path):
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _inherited_run():
    """The run id a parent process's block passed down (None if this process set it)."""
    value = os.environ.get(ENV_VAR) or ""
    run_id, _, pid = value.rpartition(":")
    if not run_id or not pid.isdigit() or int(pid) == os.getpid():
        return None
    return run_id


def _alive(block):
    """Whether a listed block's process may still be writing."""
    if not isinstance(block, dict) or not isinstance(block.get("pid"), int):
        return False
    if block.get("host") != socket.gethostname():
        started = block.get("started")
        return isinstance(started, (int, float)) and time.time() - started < REMOTE_TRUST_S
    if block["pid"] == os.getpid():
        return False   # this process's earlier block, which ended without closing
    if os.name == "nt":  # os.kill(pid, 0) would end the process there: trust it for a day
        started = block.get("started")
        return isinstance(started, (int, float)) and time.time() - started < REMOTE_TRUST_S
    try:
        os.kill(block["pid"], 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True    # exists, owned by someone else
    return True

