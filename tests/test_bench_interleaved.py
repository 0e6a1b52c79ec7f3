"""bench/interleaved.py on a tiny tree: two versions loaded side by side under their own names,
every function decompiled by both, different outputs counted. (Its figures come from whole
stdlib runs; this keeps the script working.)"""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
sys.path.insert(0, BENCH)
import interleaved  # noqa: E402

sys.path.remove(BENCH)

SOURCE = ("def add(a, b):\n    return a + b\n\n"
          "def pick(items):\n    return [x for x in items if x]\n")


def test_same_code_twice_gives_identical_outputs_and_a_ratio(tmp_path, capsys):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "mod.py").write_text(SOURCE)
    src = os.path.join(ROOT, "src")
    assert interleaved.main([src, src, "--source-root", str(tmp_path / "tree")]) == 0
    printed = capsys.readouterr().out
    # add, pick and pick's comprehension (a function-level code object before 3.12)
    assert ("3 functions, 0 with different output" in printed or
            "2 functions, 0 with different output" in printed)
    assert "head/base" in printed
    assert not any(name.startswith("dynalens_base") for name in sys.modules)


def test_the_copies_import_themselves_not_the_installed_package(tmp_path):
    decompile_code = interleaved.load_under(os.path.join(ROOT, "src"), "dynalens_copy_probe",
                                            str(tmp_path))
    try:
        assert decompile_code.__module__ == "dynalens_copy_probe.decompiler.render"
        dataflow = sys.modules.get("dynalens_copy_probe.decompiler.dataflow")
        copied = (tmp_path / "dynalens_copy_probe" / "decompiler" / "dataflow.py").read_text()
        assert "from dynalens." not in copied and "from dynalens_copy_probe." in copied
        assert dataflow is None or dataflow.__file__.startswith(str(tmp_path))
    finally:
        for name in [n for n in sys.modules if n.startswith("dynalens_copy_probe")]:
            del sys.modules[name]
        sys.path.remove(str(tmp_path))


def test_a_spec_that_is_neither_folder_nor_revision_is_named(tmp_path):
    with pytest.raises(SystemExit) as info:
        interleaved.package_source("no-such-revision-xyz", str(tmp_path), "base")
    assert "no-such-revision-xyz" in str(info.value)


def test_one_revision_given_twice_is_two_copies(tmp_path):
    """`interleaved.py HEAD HEAD` is the noise check (two identical copies); both sides used to
    be written to one folder, so the second failed with FileExistsError."""
    if not os.path.isdir(os.path.join(ROOT, ".git")):
        pytest.skip("not a git checkout: revisions cannot be written out")
    base = interleaved.package_source("HEAD", str(tmp_path), "base")
    head = interleaved.package_source("HEAD", str(tmp_path), "head")
    assert base != head
    assert os.path.isfile(os.path.join(base, "dynalens", "decompiler", "render.py"))
    assert os.path.isfile(os.path.join(head, "dynalens", "decompiler", "render.py"))
