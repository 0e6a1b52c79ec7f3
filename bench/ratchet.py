"""The round-trip ratchet: no code object that came back exact may stop doing so.

``bench/roundtrip.py --verdicts PATH`` writes one verdict per code object of the run (module,
class body, function, lambda, comprehension), keyed ``<file>::<qualified name>:<first line>``
(the file relative to the stdlib root, or to ``--source-root`` / inside ``--source-zip``; a
second code object with the same key gets ``#2``...). Keys are stable across runs of one
interpreter: compiling the same file gives the same code objects.

A baseline (``bench/baselines/<X.Y>.json``, committed, one per Python version) stores only the
keys that were NOT exact, plus counts and the interpreter's full version: everything else in
the files it covers was exact. ``check`` compares a run with it:

* a key the baseline covers, not in its not-exact list, now not exact: a REGRESSION (exit 1);
* a key in the not-exact list, now exact: an improvement (exit 0; ``update`` records it, so
  the ratchet tightens);
* a run on another patch release than the baseline's (another stdlib): skipped, saying so.

    python bench/roundtrip.py -j 2 --ratchet           # whole stdlib, checked against the baseline
    python bench/roundtrip.py --verdicts v.json        # then:
    python bench/ratchet.py check v.json               # compare (exit 1 on a regression)
    python bench/ratchet.py update v.json              # write the baseline from a whole run

Standard library only: it runs wherever bench/roundtrip.py runs (Pyodide included).
"""

import argparse
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINES = os.path.join(HERE, "baselines")
EXACT = "exact"
SHOWN = 25  # regressions listed by name; the rest are counted


def baseline_path(python_version, folder=BASELINES):
    """bench/baselines/<X.Y>.json for a full version string such as '3.12.1'."""
    return os.path.join(folder, "%s.json" % ".".join(python_version.split(".")[:2]))


def file_of(key):
    return key.split("::", 1)[0]


def universe_digest(keys):
    """sha256 over the sorted keys: says whether two whole runs saw the same code objects."""
    digest = hashlib.sha256()
    for key in sorted(keys):
        digest.update(key.encode("utf-8") + b"\n")
    return digest.hexdigest()


def make_baseline(run):
    """The baseline for a verdicts document (see roundtrip.py ``--verdicts``)."""
    verdicts = run["verdicts"]
    not_exact = sorted(k for k, v in verdicts.items() if v != EXACT)
    baseline = {
        "python": run["python"],
        "implementation": run.get("implementation", "CPython"),
        "mode": run.get("mode", "decompile"),
        "sample": run.get("sample"),
        "files": len(run["files"]),
        "code_objects": len(verdicts),
        "exact": len(verdicts) - len(not_exact),
        "universe_sha256": universe_digest(verdicts),
        "not_exact": not_exact,
    }
    if run.get("sample") is not None:
        baseline["files_covered"] = sorted(run["files"])  # a sample: name what it covers
    return baseline


class Comparison(object):
    """What a run did against a baseline; ``status`` is 'ok', 'regressed' or 'skipped'."""

    def __init__(self, status, reason="", regressions=(), improvements=(), uncovered=0,
                 stale=()):
        self.status = status
        self.reason = reason
        self.regressions = sorted(regressions)      # [(key, cause)]
        self.improvements = sorted(improvements)    # [key]
        self.uncovered = uncovered                  # not-exact keys in files it does not cover
        self.stale = sorted(stale)                  # not-exact keys the run no longer has

    def as_json(self, shown=SHOWN):
        return {"status": self.status, "reason": self.reason,
                "regressions": len(self.regressions),
                "regressed": ["%s (%s)" % item for item in self.regressions[:shown]],
                "improvements": len(self.improvements), "uncovered": self.uncovered,
                "stale": len(self.stale)}


def compare(run, baseline):
    """Compare a verdicts document with a baseline document."""
    if run["python"] != baseline["python"] or \
            run.get("implementation", "CPython") != baseline.get("implementation", "CPython"):
        return Comparison("skipped", "baseline recorded on %s %s, this run is %s %s: another "
                          "stdlib, keys cannot be compared" % (
                              baseline.get("implementation", "CPython"), baseline["python"],
                              run.get("implementation", "CPython"), run["python"]))
    if run.get("mode", "decompile") != baseline.get("mode", "decompile"):
        return Comparison("skipped", "the run's mode is %s, the baseline's %s" % (
            run.get("mode", "decompile"), baseline.get("mode", "decompile")))
    covered = baseline.get("files_covered")
    covered = None if covered is None else set(covered)
    not_exact = set(baseline["not_exact"])
    verdicts = run["verdicts"]
    regressions, improvements, uncovered = [], [], 0
    for key, verdict in verdicts.items():
        known = covered is None or file_of(key) in covered
        if verdict == EXACT:
            if key in not_exact:
                improvements.append(key)
        elif key not in not_exact:
            if known:
                regressions.append((key, verdict))
            else:
                uncovered += 1
    run_files = set(run["files"])
    stale = [k for k in not_exact if file_of(k) in run_files and k not in verdicts]
    if covered is None and run.get("sample") is None and \
            universe_digest(verdicts) != baseline.get("universe_sha256"):
        reason = "the run saw other code objects than the baseline's run (same version)"
    else:
        reason = ""
    return Comparison("regressed" if regressions else "ok", reason, regressions, improvements,
                      uncovered, stale)


def report(comparison, baseline_file, verdicts_file=None, out=sys.stdout):
    """Human-readable lines: every regression by key, then how to update the baseline."""
    lines = []
    rel = os.path.relpath(baseline_file)
    if comparison.status == "skipped":
        lines.append("ratchet: SKIPPED (%s)" % comparison.reason)
    elif comparison.regressions:
        lines.append("ratchet: %d REGRESSION(S) against %s -- exact before, not exact now:"
                     % (len(comparison.regressions), rel))
        for key, cause in comparison.regressions[:SHOWN]:
            lines.append("  %s  (%s)" % (key, cause))
        if len(comparison.regressions) > SHOWN:
            lines.append("  ... and %d more" % (len(comparison.regressions) - SHOWN))
    else:
        lines.append("ratchet: ok against %s (no exact code object regressed)" % rel)
    if comparison.reason and comparison.status != "skipped":
        lines.append("ratchet: note: %s" % comparison.reason)
    if comparison.improvements:
        lines.append("ratchet: %d code object(s) exact now that were not (first: %s)"
                     % (len(comparison.improvements), comparison.improvements[0]))
    if comparison.uncovered:
        lines.append("ratchet: %d not exact in files the baseline does not cover"
                     % comparison.uncovered)
    if comparison.improvements or comparison.regressions:
        lines.append("ratchet: to record this run as the new baseline (regressions accepted "
                     "on purpose included): python bench/ratchet.py update %s --baseline %s"
                     % (verdicts_file or "VERDICTS.json", rel))
    out.write("\n".join(lines) + "\n")


def update(run, baseline_file):
    """Write the baseline for ``run``; a sampled run may only replace a sampled baseline of the
    same files (it cannot vouch for the rest of the stdlib)."""
    if run.get("sample") is not None and os.path.exists(baseline_file):
        old = load(baseline_file)
        if old.get("files_covered") is None:
            old_not_exact = set(old["not_exact"])
            covered = set(run["files"])
            fresh = make_baseline(run)
            if old["python"] != run["python"]:
                raise SystemExit("ratchet: baseline is for %s, run is %s" % (old["python"],
                                                                           run["python"]))
            # keep the whole-stdlib baseline; only this sample's files are brought up to date
            merged = set(k for k in old_not_exact if file_of(k) not in covered)
            merged.update(fresh["not_exact"])
            old["not_exact"] = sorted(merged)
            old["exact"] = old["code_objects"] - len(merged)
            save(old, baseline_file)
            return old
    baseline = make_baseline(run)
    save(baseline, baseline_file)
    return baseline


def load(path):
    with open(path) as handle:
        return json.load(handle)


def save(document, path):
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        os.makedirs(folder)
    with open(path, "w") as handle:
        json.dump(document, handle, indent=0, sort_keys=True)
        handle.write("\n")


def check(run, baseline_file, verdicts_file=None, out=sys.stdout):
    """Compare and report; returns the Comparison ('skipped' when there is no baseline)."""
    if not os.path.exists(baseline_file):
        comparison = Comparison("skipped", "no baseline %s (record one: python "
                                "bench/ratchet.py update VERDICTS.json)"
                                % os.path.relpath(baseline_file))
        out.write("ratchet: SKIPPED (%s)\n" % comparison.reason)
        return comparison
    comparison = compare(run, load(baseline_file))
    report(comparison, baseline_file, verdicts_file, out)
    return comparison


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["check", "update"])
    parser.add_argument("verdicts", help="the file bench/roundtrip.py --verdicts wrote")
    parser.add_argument("--baseline", metavar="PATH",
                        help="baseline file (default bench/baselines/<X.Y>.json of the run)")
    options = parser.parse_args(argv)
    run = load(options.verdicts)
    path = options.baseline or baseline_path(run["python"])
    if options.action == "update":
        baseline = update(run, path)
        print("ratchet: wrote %s (%d code objects, %d not exact)" % (
            os.path.relpath(path), baseline["code_objects"], len(baseline["not_exact"])))
        return 0
    comparison = check(run, path, options.verdicts)
    return 1 if comparison.status == "regressed" else 0


if __name__ == "__main__":
    sys.exit(main())
