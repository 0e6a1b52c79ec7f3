"""The explorer in a real browser: Debian's Chromium, headless, driven by Playwright.

The page is opened from disk (file://, no server), a link in transformed code is followed to its
graph, and a guard is unfolded; the assertions are on what the page then shows. Skipped, with
the reason, where Chromium or Playwright is missing; .ci/run installs both, so it runs in CI.
Set DYNALENS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("jinja2")

CHROMIUM = os.environ.get("DYNALENS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(sync_playwright is None,
                       reason="playwright is not installed (pip install playwright; .ci/run does)"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="no chromium at %s (apt-get install chromium; .ci/run does)" % CHROMIUM),
]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def _screenshot(page, tmp_path, name):
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=False)
    keep = os.environ.get("DYNALENS_SCREENSHOTS")
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(str(path), os.path.join(keep, name))
    return path


def _unfold(details):
    # Click the disclosure triangle's end of the title bar: its middle may hold the link that
    # opens the dumped file itself.
    details.locator("> summary").click(position={"x": 12, "y": 8})


def _follow_graph_link_and_unfold_guard(browser, report, tmp_path, compile_anchor, tag):
    errors = []
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: None if req.url.startswith(("file:", "data:", "about:"))
            else errors.append("network request: " + req.url))
    page.goto("file://" + str(report))

    # Transformed code is folded and not yet in the DOM; unfolding inserts it.
    transformed = page.locator("#%s-transformed" % compile_anchor)
    assert transformed.locator("pre").count() == 0
    _unfold(transformed)
    link = transformed.locator("pre a.xref", has_text="__compiled_fn_").first
    expect(link).to_be_visible()
    target = link.get_attribute("data-target")
    graph_name = target.split("-")[-1]
    assert graph_name.startswith("__compiled_fn_")

    link.click()
    assert page.evaluate("location.hash") == "#" + target
    graph = page.locator("#" + target)
    expect(graph).to_be_in_viewport()
    expect(graph.locator("h4")).to_contain_text(graph_name)
    # Following the link unfolds the graph's first stage: the FX graph module is on screen.
    first_stage = graph.locator("details.code").first
    expect(first_stage).to_have_attribute("open", "")
    expect(first_stage.locator("pre")).to_contain_text("GraphModule")
    _screenshot(page, tmp_path, "%s-graph.png" % tag)

    # Unfold the guards of the same compile: the guard function's Python is shown.
    guards = page.locator("#%s-guards" % compile_anchor)
    _unfold(guards)
    expect(guards.locator("pre")).to_contain_text("def __guard_")
    expect(guards.locator("pre")).to_contain_text("return")
    _screenshot(page, tmp_path, "%s-guards.png" % tag)
    assert not errors, errors
    page.close()


def test_synthetic_report_in_chromium(browser, tmp_path):
    from dynalens.report.api import write_report
    from dynalens.report.synthetic import make_dump

    make_dump(str(tmp_path / "dump"), functions=2, compiles_per_function=2)
    report = write_report(str(tmp_path / "dump"))
    page = browser.new_page()
    page.goto("file://" + report)
    expect(page.locator("#breaks")).to_contain_text("Data-dependent branching")
    expect(page.locator("#breaks")).to_contain_text("if b.sum() < 0:")
    expect(page.locator("#recompiles")).to_contain_text("dtype mismatch")
    # The filter box hides functions that do not match.
    page.fill("#filter", "example_1")
    expect(page.locator("section.function[data-name='toy_example_0']")).to_be_hidden()
    expect(page.locator("section.function[data-name='toy_example_1']")).to_be_visible()
    page.close()
    _follow_graph_link_and_unfold_guard(browser, report, tmp_path, "c-0-1", "synthetic")


def _coloured_page(browser, report, init_script=None):
    errors = []
    page = browser.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    if init_script:
        page.add_init_script(init_script)
    page.goto("file://" + str(report))
    return page, errors


def test_code_is_coloured_in_the_page_and_keeps_its_links(browser, tmp_path):
    """The writer leaves code plain; the page colours it with the inlined Prism, from disk."""
    from dynalens.report.api import write_report
    from dynalens.report.synthetic import make_dump

    make_dump(str(tmp_path / "dump"), functions=1, compiles_per_function=2)
    page, errors = _coloured_page(browser, write_report(str(tmp_path / "dump")))
    transformed = page.locator("#c-0-1-transformed")
    _unfold(transformed)
    pre = transformed.locator("pre")
    expect(pre.locator("span.token.keyword", has_text="def").first).to_be_visible()
    expect(pre.locator("span.token.comment", has_text="program_0.py:6").first).to_be_visible()
    # the links the writer made are still there, each around its whole name, and still lead on
    link = pre.locator("a.xref", has_text="__compiled_fn_2").first
    assert link.inner_text().startswith("__compiled_fn_2_")
    assert pre.inner_text().count("__compiled_fn_2_") == pre.locator(
        "a.xref", has_text="__compiled_fn_2_").count()
    keyword_colour = pre.locator("span.token.keyword").first.evaluate(
        "el => getComputedStyle(el).color")
    assert keyword_colour != pre.evaluate("el => getComputedStyle(el).color")
    link.click()
    expect(page.locator("#g-0-1-__compiled_fn_2")).to_be_in_viewport()
    # colouring adds markup only: the text shown is the dumped file's
    rel = transformed.locator("> summary a.file").get_attribute("href")
    with open(os.path.join(str(tmp_path / "dump"), rel), encoding="utf-8") as f:
        assert pre.evaluate("el => el.textContent") == f.read()
    # lines shown unfolded (the graph break's excerpt) are coloured too, and the side by side
    expect(page.locator("#breaks .hit span.token.keyword", has_text="if")).to_have_count(1)
    side = page.locator("#c-0-1-side")
    _unfold(side)
    expect(side.locator(".tc span.token.keyword").first).to_be_visible()
    expect(side.locator(".us span.token.builtin", has_text="abs").first).to_be_visible()
    expect(side.locator(".tc a.xref").first).to_be_visible()
    assert not errors, errors
    page.close()


def test_huge_blocks_stay_uncoloured_but_linked(browser, tmp_path):
    """Colouring a generated file of megabytes would hold the tab up when it is unfolded."""
    import json

    from dynalens.report.api import write_report
    from dynalens.report.synthetic import make_dump

    dump = tmp_path / "dump"
    make_dump(str(dump), functions=1, compiles_per_function=2)
    index = json.loads((dump / "index.json").read_text())
    rel = next(c for c in index["compiles"] if c["compile_id"] == "0/1")[
        "transformed_code"]["file"]
    with open(dump / rel, "a") as f:
        f.write("    y = __compiled_fn_2(a, b)  # %s\n" % ("z" * 60) * 5000)   # ~500 kB
    page, errors = _coloured_page(browser, write_report(str(dump)))
    transformed = page.locator("#c-0-1-transformed")
    _unfold(transformed)
    pre = transformed.locator("pre")
    expect(pre.locator("a.xref", has_text="__compiled_fn_2").last).to_be_attached()
    assert pre.locator("a.xref").count() > 5000
    assert pre.locator("span.token").count() == 0
    # a small block of the same page is coloured
    guards = page.locator("#c-0-1-guards")
    _unfold(guards)
    expect(guards.locator("pre span.token.keyword").first).to_be_visible()
    assert not errors, errors
    page.close()


def test_code_stays_readable_and_linked_when_the_highlighter_fails(browser, tmp_path):
    from dynalens.report.api import write_report
    from dynalens.report.synthetic import make_dump

    make_dump(str(tmp_path / "dump"), functions=1, compiles_per_function=2)
    report = write_report(str(tmp_path / "dump"))
    # Prism's tokenizer throws on every call: the page must still show the code, with links
    page, errors = _coloured_page(browser, report, init_script="""
        (function () {
            var real;
            Object.defineProperty(window, "Prism", { configurable: true,
                get: function () { return real; },
                set: function (value) {
                    real = value;
                    if (value && value.languages) {
                        value.tokenize = function () { throw new Error("broken highlighter"); };
                    }
                } });
        })();""")
    transformed = page.locator("#c-0-1-transformed")
    _unfold(transformed)
    pre = transformed.locator("pre")
    expect(pre).to_contain_text("def __transformed_code_1_for_toy_example_0(a, b):")
    assert pre.locator("span.token").count() == 0
    pre.locator("a.xref", has_text="__compiled_fn_2").first.click()
    expect(page.locator("#g-0-1-__compiled_fn_2")).to_be_in_viewport()
    expect(page.locator("#breaks .hit")).to_contain_text("if b.sum() < 0:")
    assert page.locator("span.token").count() == 0
    assert not errors, errors
    page.close()


def test_notebook_view_works_inside_its_frame(browser, tmp_path):
    """explain(dump)._repr_html_() as Jupyter shows it: links and unfolding inside the iframe."""
    from dynalens.report.api import explain
    from dynalens.report.synthetic import make_dump

    make_dump(str(tmp_path / "dump"), functions=1, compiles_per_function=2)
    notebook = tmp_path / "notebook.html"
    notebook.write_text("<!DOCTYPE html><html><body><h1 id='cell'>cell output</h1>%s</body></html>"
                        % explain(str(tmp_path / "dump"))._repr_html_())
    errors = []
    page = browser.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto("file://" + str(notebook))
    frame = page.frame_locator("iframe")
    expect(frame.locator("#recompiles")).to_contain_text("dtype mismatch")
    _unfold(frame.locator("#c-0-0-transformed"))
    frame.locator("#c-0-0-transformed a.xref", has_text="__compiled_fn_1").click()
    expect(frame.locator("#g-0-0-__compiled_fn_1 details.code").first.locator("pre")).to_contain_text(
        "GraphModule")
    # The notebook's own page is untouched by the explorer's styles.
    assert page.evaluate("getComputedStyle(document.body).margin") == "8px"
    assert not errors, errors
    page.close()


@pytest.mark.torch
@pytest.mark.slow
def test_real_demo_report_in_chromium(browser, tmp_path):
    pytest.importorskip("torch")
    dump = tmp_path / "demo"
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "dynalens", "demo", "--dump", str(dump)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = dump / "report.html"
    assert "report %s" % report in proc.stderr
    page = browser.new_page()
    page.goto("file://" + str(report))
    # The README example: a graph break on the data-dependent `if` and a dtype recompilation,
    # each with the user's source line.
    expect(page.locator("#breaks")).to_contain_text("Data-dependent branching")
    expect(page.locator("#breaks .hit").first).to_contain_text("if b.sum() < 0:")
    expect(page.locator("#recompiles")).to_contain_text("dtype mismatch")
    page.close()
    _follow_graph_link_and_unfold_guard(browser, report, tmp_path, "c-0-0", "demo")
