"""The explorer on real dumps: every lens workload, with the report prepare_debug writes itself."""

import os
import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("jinja2")

from dynalens.examples.workloads import WORKLOADS, run_workload  # noqa: E402
from dynalens.lens.api import prepare_debug  # noqa: E402

from test_report import parse  # noqa: E402

pytestmark = [pytest.mark.torch, pytest.mark.slow]

NAMES = sorted(WORKLOADS)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    runs = {}
    for name in NAMES:
        folder = tmp_path_factory.mktemp("report_" + name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            with prepare_debug(str(folder)) as run:
                run_workload(name)
        runs[name] = run
    return runs


@pytest.mark.parametrize("name", NAMES)
def test_prepare_debug_writes_a_complete_report(reports, name):
    run = reports[name]
    assert run.report_path == os.path.join(run.dump_dir, "report.html")
    text, page = parse(run.report_path)
    index = run.index

    # One unfoldable block per dumped file, each holding that file's text (plus the folded
    # full lists of guard failures where a compile has many).
    files = [a for a in page.code
             if not a.endswith(("-reasons", "-failures", "-source", "-side"))]
    assert len(files) == len(index["files"])
    # Every compile has its section; every link inside the page lands somewhere.
    for comp in index["compiles"]:
        assert ">compile %s<" % comp["compile_id"] in text
    assert [link for link in page.local_links if link not in page.ids] == []
    assert all(os.path.exists(os.path.join(run.dump_dir, rel)) for rel in page.file_links)
    assert not page.external
    assert "cannot read" not in text

    # Graph breaks and recompilations are listed with torch's reasons.
    import html as html_module
    plain = html_module.unescape(text)
    for comp in index["compiles"]:
        for brk in comp["graph_breaks"]:
            assert brk["reason"] in plain
        for reason in comp["recompile_reasons"]:
            assert reason in plain
    # Each graph in transformed code (or its disassembly) links to the graph's section.
    for comp in index["compiles"]:
        for graph in comp["graphs"]:
            transformed = [body for anchor, body in page.code.items()
                           if anchor.endswith("-transformed")]
            assert any('-%s"' % graph["name"] in body for body in transformed), graph["name"]
