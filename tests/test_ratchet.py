"""The round-trip ratchet (bench/ratchet.py, bench/roundtrip.py --verdicts / --ratchet): a code
object that was exact and is not any more fails the check and is named; an improvement passes
and says how to record it; a baseline from another interpreter release is not compared."""

import io
import json
import os
import sys
import types

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
sys.path.insert(0, BENCH)
import ratchet  # noqa: E402
import roundtrip  # noqa: E402

sys.path.remove(BENCH)


def run_doc(verdicts, python="3.12.1", sample=None, files=None):
    return {"python": python, "implementation": "CPython", "mode": "decompile",
            "sample": sample,
            "files": files if files is not None else sorted(set(
                ratchet.file_of(k) for k in verdicts)),
            "verdicts": dict(verdicts)}


BEFORE = {"a.py::<module>:1": "exact", "a.py::f:1": "exact", "a.py::g:5": "crash: KeyError",
          "b.py::<module>:1": "exact", "b.py::h:3": "exact"}


def test_baseline_keeps_only_the_keys_not_exact():
    baseline = ratchet.make_baseline(run_doc(BEFORE))
    assert baseline["not_exact"] == ["a.py::g:5"]
    assert baseline["code_objects"] == 5 and baseline["exact"] == 4
    assert "files_covered" not in baseline  # a whole run covers everything


def test_a_regression_fails_and_is_named(tmp_path):
    path = str(tmp_path / "3.12.json")
    ratchet.save(ratchet.make_baseline(run_doc(BEFORE)), path)
    after = dict(BEFORE, **{"b.py::h:3": "POP_TOP instead of RETURN_VALUE"})
    out = io.StringIO()
    comparison = ratchet.check(run_doc(after), path, "v.json", out)
    assert comparison.status == "regressed"
    assert comparison.regressions == [("b.py::h:3", "POP_TOP instead of RETURN_VALUE")]
    text = out.getvalue()
    assert "1 REGRESSION" in text and "b.py::h:3" in text
    assert "python bench/ratchet.py update v.json" in text


def test_an_improvement_passes_and_says_how_to_update(tmp_path):
    path = str(tmp_path / "3.12.json")
    ratchet.save(ratchet.make_baseline(run_doc(BEFORE)), path)
    after = dict(BEFORE, **{"a.py::g:5": "exact"})
    out = io.StringIO()
    comparison = ratchet.check(run_doc(after), path, "v.json", out)
    assert comparison.status == "ok" and comparison.improvements == ["a.py::g:5"]
    assert "python bench/ratchet.py update v.json --baseline" in out.getvalue()
    ratchet.update(run_doc(after), path)
    assert ratchet.load(path)["not_exact"] == []


def test_unchanged_passes_without_an_update_hint(tmp_path):
    path = str(tmp_path / "3.12.json")
    ratchet.save(ratchet.make_baseline(run_doc(BEFORE)), path)
    out = io.StringIO()
    assert ratchet.check(run_doc(BEFORE), path, None, out).status == "ok"
    assert "update" not in out.getvalue()


def test_another_release_or_mode_is_skipped_not_passed(tmp_path):
    path = str(tmp_path / "3.12.json")
    ratchet.save(ratchet.make_baseline(run_doc(BEFORE)), path)
    worse = dict(BEFORE, **{"b.py::h:3": "crash"})
    other = ratchet.check(run_doc(worse, python="3.12.4"), path, None, io.StringIO())
    assert other.status == "skipped" and "3.12.1" in other.reason and "3.12.4" in other.reason
    doc = dict(run_doc(worse), mode="baseline")
    assert ratchet.check(doc, path, None, io.StringIO()).status == "skipped"
    missing = ratchet.check(run_doc(worse), str(tmp_path / "none.json"), None, io.StringIO())
    assert missing.status == "skipped" and "update" in missing.reason


def test_a_sample_run_checks_its_files_against_a_whole_baseline(tmp_path):
    path = str(tmp_path / "3.12.json")
    ratchet.save(ratchet.make_baseline(run_doc(BEFORE)), path)
    sampled = {"b.py::<module>:1": "exact", "b.py::h:3": "crash"}
    comparison = ratchet.compare(run_doc(sampled, sample=1), ratchet.load(path))
    assert comparison.regressions == [("b.py::h:3", "crash")]
    # a sample may bring its own files up to date in a whole baseline, nothing else
    ratchet.update(run_doc(sampled, sample=1), path)
    assert ratchet.load(path)["not_exact"] == ["a.py::g:5", "b.py::h:3"]


def test_a_sampled_baseline_does_not_judge_files_it_never_saw():
    baseline = ratchet.make_baseline(run_doc({"a.py::f:1": "exact"}, sample=1))
    assert baseline["files_covered"] == ["a.py"]
    run = run_doc({"a.py::f:1": "exact", "c.py::k:2": "crash"})
    comparison = ratchet.compare(run, baseline)
    assert comparison.status == "ok" and comparison.uncovered == 1


SOURCE = ("def add(a, b):\n    return a + b\n\n"
          "def pair():\n    return (lambda: 1), (lambda: 2)\n\n"
          "class Box:\n    def get(self):\n        def inner():\n            return 1\n"
          "        return inner\n")


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mod.py").write_text(SOURCE)
    return tmp_path


def _fake_core(monkeypatch, wrong=()):
    """A stand-in decompiler: the true source, except for the functions named in ``wrong``."""
    fake = types.ModuleType("dynalens.decompiler.render")

    def decompile_code(code, **kwargs):
        if code.co_name in wrong:
            return "def %s(a, b):\n    return a - b\n" % code.co_name
        return SOURCE

    fake.decompile_code = decompile_code
    monkeypatch.setitem(sys.modules, "dynalens.decompiler.render", fake)


def test_roundtrip_verdicts_and_ratchet_end_to_end(tree, monkeypatch, capsys):
    root, verdicts = str(tree / "src"), str(tree / "v.json")
    baseline = str(tree / "base.json")
    _fake_core(monkeypatch, wrong=("add",))
    assert roundtrip.main(["--source-root", root, "--quiet", "--verdicts", verdicts]) == 0
    document = json.load(open(verdicts))
    keys = list(document["verdicts"])
    # one key per code object, stable names; the second lambda on line 5 gets '#2'
    assert "mod.py::add:1" in keys and "mod.py::<module>:1" in keys
    assert "mod.py::pair.<locals>.<lambda>:5" in keys
    assert "mod.py::pair.<locals>.<lambda>:5#2" in keys
    assert "mod.py::Box.get.<locals>.inner:9" in keys
    assert document["verdicts"]["mod.py::add:1"] != "exact"
    ratchet.update(document, baseline)
    capsys.readouterr()
    # `get` goes wrong, `add` comes right: one regression, named, and the run fails
    _fake_core(monkeypatch, wrong=("get",))
    status = roundtrip.main(["--source-root", root, "--quiet", "--ratchet", baseline,
                             "--json", str(tree / "r.json"), "--verdicts", verdicts])
    printed = capsys.readouterr().out
    assert status == 1
    assert "mod.py::Box.get:8" in printed and "REGRESSION" in printed
    assert json.load(open(str(tree / "r.json")))["ratchet"]["regressions"] == 1
    assert "python bench/ratchet.py update %s --baseline" % verdicts in printed
    # back to the baseline's state: passes
    _fake_core(monkeypatch, wrong=("add",))
    assert roundtrip.main(["--source-root", root, "--quiet", "--ratchet", baseline,
                           "--verdicts", verdicts]) == 0


def test_qualified_names_built_before_311_match_co_qualname():
    module = compile(SOURCE + "\nclass A:\n    class B:\n        def m(self):\n"
                     "            return [x for x in self]\n", "m.py", "exec")
    built = [name for _, name in roundtrip.walk_named(module, own=False)]
    assert "Box.get.<locals>.inner" in built and "A.B.m" in built
    if sys.version_info >= (3, 11):
        assert built == [name for _, name in roundtrip.walk_named(module)]


def test_committed_baselines_are_small_and_well_formed():
    folder = ratchet.BASELINES
    names = sorted(os.listdir(folder))
    assert "3.11.json" in names
    total = 0
    for name in names:
        path = os.path.join(folder, name)
        total += os.path.getsize(path)
        baseline = ratchet.load(path)
        assert ratchet.baseline_path(baseline["python"]) == path
        assert baseline["not_exact"] == sorted(set(baseline["not_exact"]))
        assert baseline["exact"] + len(baseline["not_exact"]) == baseline["code_objects"]
    assert total < 400 * 1024
