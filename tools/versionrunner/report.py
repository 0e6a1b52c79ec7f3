"""Turn per-version results into the one table users read, and into the exit status.

Kept apart from running so the verdict rules (what counts as failed, crashed or skipped) can be
tested with fake results: a version without an interpreter must read SKIPPED with its reason,
never pass silently, and a crash must fail the run whatever the floor is.
"""

import json

COLUMNS = ("version", "interpreter", "construct tests", "functions", "exact %",
           "files exact %", "functions/s", "result")


def roundtrip_figures(data):
    """The round trip's headline numbers from bench/roundtrip.py's JSON (None where absent)."""
    data = data or {}
    causes = data.get("failures_by_cause") or []
    if isinstance(causes, dict):
        causes = sorted(causes.items(), key=lambda item: -item[1])
    return {
        "functions": data.get("functions"),
        "exact_pct": data.get("functions_exact_pct"),
        "files_exact_pct": data.get("files_every_code_object_exact_pct"),
        "functions_per_second": data.get("functions_per_second"),
        "not_compiling": data.get("outputs_not_compiling"),
        "other_exceptions": data.get("exceptions_other_than_DecompilationError"),
        "files": data.get("files"),
        "causes": [(str(c), int(n)) for c, n in causes],
    }


def status(result, min_exact=0.0, strict=False):
    """("ok" | "failed" | "crashed" | "skipped", reason text) for one VersionResult."""
    if result.skipped:
        return "skipped", result.skipped
    steps = [s for s in (result.corpus, result.roundtrip) if s is not None]
    for step in steps:
        if step.error:
            return "crashed", "%s: %s" % (step.name, step.error)
    corpus = result.corpus.data if result.corpus else None
    if corpus and corpus.get("failed") and strict:
        return "failed", "%d construct test(s) failed" % corpus["failed"]
    if result.roundtrip is not None:
        exact = roundtrip_figures(result.roundtrip.data)["exact_pct"]
        if exact is None:
            return "crashed", "roundtrip: no exact % in its results"
        if exact < min_exact:
            return "failed", "exact %.2f%% below the floor %.2f%%" % (exact, min_exact)
        regressed = ratchet_regressions(result.roundtrip.data)
        if regressed:
            return "failed", regressed
    return "ok", ""


def ratchet_regressions(data):
    """'ratchet: N regression(s): first keys' when bench/roundtrip.py --ratchet found code
    objects that were exact in the committed baseline and are not now; '' otherwise."""
    ratchet = (data or {}).get("ratchet") or {}
    if ratchet.get("status") != "regressed":
        return ""
    named = ratchet.get("regressed") or []
    return "ratchet: %d regression(s): %s%s" % (
        ratchet.get("regressions", len(named)), "; ".join(named[:3]),
        " ..." if len(named) > 3 else "")


def ratchet_state(data):
    """The ratchet's word on one version: 'ok', 'regressed', 'skipped (why)' or None when the
    round trip did not run it."""
    ratchet = (data or {}).get("ratchet")
    if not ratchet:
        return None
    if ratchet.get("status") == "skipped":
        return "skipped (%s)" % ratchet.get("reason", "")
    return ratchet.get("status")


def _fmt(value, pattern="%s"):
    return "-" if value is None else pattern % value


def row(result, min_exact=0.0, strict=False, home=None):
    """The table cells for one version."""
    state, reason = status(result, min_exact, strict)
    label = result.interpreter.label(home) if result.interpreter else "-"
    if state == "skipped":
        return [result.version, label, "-", "-", "-", "-", "-", "SKIPPED (%s)" % reason]
    corpus = result.corpus.data if result.corpus and result.corpus.data else None
    tests = "-"
    if corpus:
        tests = "%d passed, %d failed" % (corpus.get("passed", 0), corpus.get("failed", 0))
        if corpus.get("skipped"):
            tests += ", %d skipped" % corpus["skipped"]
    figures = roundtrip_figures(result.roundtrip.data if result.roundtrip else None)
    verdict = {"ok": "ok", "failed": "FAILED (%s)", "crashed": "CRASHED (%s)"}[state]
    if "%s" in verdict:
        verdict = verdict % reason
    elif corpus and corpus.get("failed"):
        verdict = "ran"  # met the floor, but construct tests failed (enforced by --strict)
    return [
        result.version, label, tests,
        _fmt(figures["functions"]),
        _fmt(figures["exact_pct"], "%.1f"),
        _fmt(figures["files_exact_pct"], "%.1f"),
        _fmt(figures["functions_per_second"], "%.0f"),
        verdict,
    ]


def table(results, min_exact=0.0, strict=False, home=None):
    """Plain-text table, columns padded to fit, numbers right-aligned."""
    rows = [list(COLUMNS)] + [row(r, min_exact, strict, home) for r in results]
    numeric = set([3, 4, 5, 6])
    widths = [max(len(str(r[i])) for r in rows[:]) for i in range(len(COLUMNS) - 1)]
    lines = []
    for cells in rows:
        parts = []
        for i, cell in enumerate(cells[:-1]):
            parts.append(str(cell).rjust(widths[i]) if i in numeric else str(cell).ljust(widths[i]))
        parts.append(str(cells[-1]))
        lines.append("  ".join(parts).rstrip())
    rule = "-" * len(lines[0])
    return "\n".join([lines[0], rule] + lines[1:])


def markdown(results, min_exact=0.0, strict=False):
    """The table as Markdown rows (for the README), same cells as the text table."""
    lines = ["| %s |" % " | ".join(COLUMNS), "|" + " --- |" * len(COLUMNS)]
    for result in results:
        cells = row(result, min_exact, strict, home="")
        if result.interpreter and result.interpreter.kind == "native":
            cells[1] = "native %s" % result.interpreter.full_version
        lines.append("| %s |" % " | ".join(str(c).replace("|", "\\|") for c in cells))
    return "\n".join(lines)


def matrix(results, width=34):
    """Construct test x version: "ok", "skip" or the file's first failure cause, shortened.

    The view for a folder of per-version snippets: which construct breaks where, and how.
    """
    ran = [r for r in results if r.corpus is not None and r.corpus.data]
    names = []
    cells = {}
    for result in ran:
        for item in result.corpus.data.get("files", []):
            if item["name"] not in names:
                names.append(item["name"])
            if item["status"] == "pass":
                text = "ok"
            elif item["status"] == "skip":
                text = "skip"
            else:
                failures = item.get("failures") or [{"cause": "failed"}]
                text = failures[-1]["cause"]  # the innermost code object says most
            cells[(item["name"], result.version)] = _shorten(text, width)
    if not names:
        return ""
    first = max(len(n) for n in names + ["construct test"])
    widths = [max([len(r.version)] + [len(cells.get((n, r.version), "-")) for n in names])
              for r in ran]
    lines = ["  ".join(["construct test".ljust(first)]
                       + [r.version.ljust(w) for r, w in zip(ran, widths)]).rstrip()]
    for name in sorted(names):
        lines.append("  ".join([name.ljust(first)] + [
            cells.get((name, r.version), "-").ljust(w) for r, w in zip(ran, widths)]).rstrip())
    return "\n".join(lines)


def _shorten(text, width):
    text = text.replace("DecompilationError at ", "").replace("DecompilationError: ", "")
    text = text.replace("internal error: ", "")
    return text if len(text) <= width else text[:width - 3] + "..."


def legend(results, min_exact=0.0, strict=False):
    """Lines under the table that say what the verdicts did and did not enforce."""
    passed = failed = 0
    for result in results:
        data = result.corpus.data if result.corpus and result.corpus.data else None
        if data:
            passed += data.get("passed", 0)
            failed += data.get("failed", 0)
    lines = ["construct tests over all versions: %d passed, %d failed%s"
             % (passed, failed, "" if strict or not failed else
                " (not enforced; --strict fails a version on them)")]
    if any(row(r, min_exact, strict)[-1] == "ran" for r in results):
        lines.append("ran = ran and met the floor (--min-exact %g%%), but construct tests failed"
                     % min_exact)
    return "\n".join(lines)


def counts(results, min_exact=0.0, strict=False):
    """{"ok": n, "failed": n, "crashed": n, "skipped": n}."""
    tally = {"ok": 0, "failed": 0, "crashed": 0, "skipped": 0}
    for result in results:
        tally[status(result, min_exact, strict)[0]] += 1
    return tally


def summary_line(results, min_exact=0.0, strict=False):
    """'versions: N passed, N failed, N skipped' (crashes count as failed)."""
    tally = counts(results, min_exact, strict)
    return "versions: %d passed, %d failed, %d skipped" % (
        tally["ok"], tally["failed"] + tally["crashed"], tally["skipped"])


def exit_status(results, min_exact=0.0, strict=False):
    """0 when nothing failed or crashed; skipped versions do not fail the run by themselves."""
    tally = counts(results, min_exact, strict)
    return 1 if tally["failed"] or tally["crashed"] else 0


def causes_text(results, top=5, examples=None):
    """Top failure causes per version (construct tests and round trip), for VERSION_NOTES.

    ``examples(result) -> {cause: text}`` adds the first stdlib code object that failed that way.
    """
    lines = []
    for result in results:
        if result.skipped:
            continue
        merged = {}
        corpus = result.corpus.data if result.corpus and result.corpus.data else {}
        for cause, n in (corpus.get("causes") or {}).items():
            merged[cause] = merged.get(cause, 0) + n
        for cause, n in roundtrip_figures(result.roundtrip.data if result.roundtrip else None)[
                "causes"]:
            merged[cause] = merged.get(cause, 0) + n
        if not merged:
            continue
        lines.append("%s (%s):" % (result.version, result.interpreter.label()))
        found = examples(result) if examples else {}
        for cause, n in sorted(merged.items(), key=lambda item: (-item[1], item[0]))[:top]:
            lines.append("  %6d  %s" % (n, cause))
            if cause in found:
                lines.append("          e.g. %s" % found[cause])
    return "\n".join(lines)


def to_json(results, min_exact=0.0, strict=False):
    """Machine-readable form of the whole run (for the README table and for tools)."""
    out = []
    for result in results:
        state, reason = status(result, min_exact, strict)
        entry = {"version": result.version, "status": state, "reason": reason,
                 "seconds": round(result.seconds, 2)}
        if result.interpreter:
            entry["interpreter"] = {"kind": result.interpreter.kind,
                                    "path": result.interpreter.path,
                                    "release": result.interpreter.release,
                                    "python": result.interpreter.full_version}
        for step in (result.corpus, result.roundtrip):
            if step is not None:
                entry[step.name] = {"returncode": step.returncode, "error": step.error,
                                    "seconds": round(step.seconds, 2), "log": step.log_path}
        if result.corpus and result.corpus.data:
            data = result.corpus.data
            entry["corpus"].update({k: data.get(k) for k in (
                "passed", "failed", "skipped", "code_objects", "code_objects_exact", "causes")})
        if result.roundtrip and result.roundtrip.data:
            entry["roundtrip"].update(roundtrip_figures(result.roundtrip.data))
        out.append(entry)
    return json.dumps(out, indent=1)
