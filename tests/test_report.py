"""The HTML explorer on synthetic dumps (no torch needed): content, links, robustness."""

import html
import io
import json
import os
import re
import shutil
from html.parser import HTMLParser

import pytest

pytest.importorskip("jinja2")

from dynalens.report import crosslinks
from dynalens.report.api import explain, write_report
from dynalens.report.load import NotADump, load_dump
from dynalens.report.progress import progress
from dynalens.report.synthetic import make_dump


class _Page(HTMLParser):
    """Ids, local links and file links of a page, including the lazily inserted code blocks."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.local_links = []
        self.file_links = []
        self.external = []
        self.code = {}          # block id -> the HTML inserted when it is unfolded
        self._script = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            value = attrs.get(key)
            if value is None:
                continue
            if value.startswith("#"):
                self.local_links.append(value[1:])
            elif re.match(r"^[a-z]+://", value):
                self.external.append(value)
            else:
                self.file_links.append(value)
        if tag == "script" and attrs.get("type") == "text/x-dynalens":
            self._script = attrs["id"][len("src-"):]

    def handle_data(self, data):
        if self._script is not None:
            self.code[self._script] = self.code.get(self._script, "") + data

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None


def parse(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    page = _Page()
    page.feed(text)
    for body in list(page.code.values()):
        inner = _Page()
        inner.feed(body)
        page.local_links.extend(inner.local_links)
        page.external.extend(inner.external)
    return text, page


@pytest.fixture
def dump(tmp_path):
    root = tmp_path / "dump"
    make_dump(str(root), functions=2, compiles_per_function=2)
    return root


def test_report_shows_breaks_recompiles_and_code(dump):
    path = write_report(str(dump))
    assert path == str(dump / "report.html")
    text, page = parse(path)
    # Landing page: both functions, every compile id, the graph break with the user's line,
    # the recompilation with the failed guard.
    assert "toy_example_0" in text and "toy_example_1" in text
    for cid in ("0/0", "0/1", "1/0", "1/1"):
        assert ">%s<" % cid in text
    assert "Data-dependent branching" in text
    assert "program_0.py:7" in text
    assert "b.sum" in text and "tensor &#39;a&#39; dtype mismatch. expected Float, actual Double" in text
    # Every code block of the index is present as an unfoldable block with its own content,
    # and each function's own source, read from the user's file.
    index = json.loads((dump / "index.json").read_text())
    files = [a for a in page.code if not a.endswith(("-source", "-side"))]
    assert len(files) == len(index["files"])
    source = page.code["f-toy_example_0-0-source"]
    assert "@torch.compile" in source and "b.sum() &lt; " in source
    assert "toy_example_0 (your source, program_0.py:4)" in text
    guards = page.code["c-0-1-guards"]
    assert "__guard_1_for_toy_example_0" in guards and "torch.double" in guards


def test_links_resolve_and_tie_code_to_graphs(dump):
    _, page = parse(write_report(str(dump)))
    missing = [link for link in page.local_links if link not in page.ids]
    assert not missing
    # __compiled_fn_<k>_<uuid> in transformed code links to graph __compiled_fn_<k> of the same
    # compile; the resume global links to that compile's resume block.
    transformed = page.code["c-0-1-transformed"]
    assert re.search(r'href="#g-0-1-__compiled_fn_2"[^>]*>__compiled_fn_2_0000', transformed)
    assert 'href="#c-0-1-resume-0"' in transformed
    assert not page.external
    # Each dumped file is linked for opening, relative to the page.
    for rel in page.file_links:
        assert (dump / rel).exists(), rel


def test_transformed_code_side_by_side_with_the_users_lines(dump):
    # each statement's `# program_0.py:N` comment puts the user's line N next to it
    text, page = parse(write_report(str(dump)))
    side = page.code["c-0-1-side"]
    assert "__transformed_code_1_for_toy_example_0 next to your source (program_0.py)" in text
    rows = re.findall(r'<span class="sbs"><span class="tc py">(.*?)</span><span class="us">(.*?)'
                      r'</span></span>(?=<span class="sbs">|$)', side)
    plain = [(html.unescape(re.sub(r"<[^>]+>", "", left)),
              html.unescape(re.sub(r"<[^>]+>", "", right))) for left, right in rows]
    # the graph call and its output come from line 6, the resume calls from the `if` (line 7);
    # a run of statements from one line shows that line once; the comments are not repeated
    assert ("    x = graph_out_0[1]", "") in plain
    assert any(left.startswith("    graph_out_0 = __compiled_fn_2")
               and right == "6x = a / (torch.abs(a) + 1)" for left, right in plain), plain
    assert any(left.strip().startswith("return __resume_at_96_")
               and right == "7if b.sum() < 0:" for left, right in plain), plain
    assert not any("program_0.py:" in left for left, _ in plain)
    # names in the left column link as in the transformed block
    assert 'href="#c-0-1-resume-0"' in side


def test_side_by_side_needs_lines_of_the_users_file():
    from dynalens.report.load import side_by_side
    from dynalens.report.model import CodeBlock

    block = CodeBlock(title="t", anchor="a", text="# header\ndef f(a):\n    return g(a)  # other.py:3\n")
    assert side_by_side(block, "/src/program.py", "a-side") is None
    block.text = block.text.replace("other.py", "program.py")
    side = side_by_side(block, "/src/program.py", "a-side")
    assert side.rows == [("def f(a):", None, ""), ("    return g(a)", 3, "")]


def test_report_elsewhere_links_back_to_dump(dump, tmp_path):
    out = tmp_path / "pages" / "run.html"
    path = write_report(str(dump), output=str(out))
    assert path == str(out)
    _, page = parse(path)
    assert page.file_links
    for rel in page.file_links:
        assert (out.parent / rel).resolve().exists(), rel


def test_text_from_the_dump_is_escaped(dump):
    index = json.loads((dump / "index.json").read_text())
    index["compiles"][0]["graph_breaks"][0]["reason"] = "<script>alert(1)</script>"
    (dump / "index.json").write_text(json.dumps(index))
    (dump / index["compiles"][0]["guards"]["file"]).write_text("x = '</script><b>'\n")
    text, page = parse(write_report(str(dump)))
    assert "<script>alert(1)" not in text
    assert "&lt;script&gt;alert(1)" in text
    assert "&lt;/script&gt;&lt;b&gt;" in page.code["c-0-0-guards"]


def test_missing_file_and_lens_warnings_are_listed(dump):
    index = json.loads((dump / "index.json").read_text())
    index["warnings"] = ["could not decompile something"]
    (dump / "index.json").write_text(json.dumps(index))
    os.unlink(dump / index["compiles"][0]["graphs"][0]["kernels"][0])
    text, _ = parse(write_report(str(dump)))
    assert "Problems while reading the dump" in text
    assert "__compiled_fn_1.kernel_0.py" in text
    assert "lens: could not decompile something" in text


def test_without_index_files_are_grouped_by_name(dump):
    os.unlink(dump / "index.json")
    model = load_dump(str(dump))
    assert sorted(c.compile_id for c in model.compiles) == [
        "toy_example_0#0", "toy_example_0#1", "toy_example_1#0", "toy_example_1#1"]
    owner = {g.name: c.compile_id for c in model.compiles for g in c.graphs}
    assert owner == {"__compiled_fn_1": "toy_example_0#0", "__compiled_fn_2": "toy_example_0#1",
                     "__compiled_fn_3": "toy_example_1#0", "__compiled_fn_4": "toy_example_1#1"}
    assert any("no index.json" in w for w in model.warnings)
    _, page = parse(write_report(str(dump)))
    assert any("GraphModule" in body for body in page.code.values())
    assert 'href="#g-toy_example_1-1-__compiled_fn_4"' in page.code["c-toy_example_1-1-transformed"]


def test_broken_index_falls_back_to_names(dump):
    (dump / "index.json").write_text('{"compiles": [')
    model = load_dump(str(dump))
    assert len(model.compiles) == 4
    assert any("could not be read" in w for w in model.warnings)


def test_rank_subdumps_are_shown_with_their_own_links(tmp_path):
    root = tmp_path / "dump"
    make_dump(str(root / "rank_0"), functions=1, compiles_per_function=1, pid=10)
    make_dump(str(root / "rank_1"), functions=1, compiles_per_function=1, pid=11)
    (root / "index.json").write_text(json.dumps(
        {"format": "dynalens-dump", "format_version": 1, "compiles": [], "files": [],
         "subdumps": ["rank_0", {"path": "rank_1"}]}))
    text, page = parse(write_report(str(root)))
    assert "rank_0 0/0" in text and "rank_1 0/0" in text
    # __compiled_fn_1 exists in both ranks; each rank's code links to its own graph.
    assert 'href="#g-rank_0-0-0-__compiled_fn_1"' in page.code["c-rank_0-0-0-transformed"]
    assert 'href="#g-rank_1-0-0-__compiled_fn_1"' in page.code["c-rank_1-0-0-transformed"]
    assert all(link in page.ids for link in page.local_links)
    assert all((root / rel).exists() for rel in page.file_links)


def test_bad_folders_give_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such directory"):
        write_report(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotADump, match="not a dynalens dump folder"):
        write_report(str(tmp_path / "empty"))
    (tmp_path / "list").mkdir()
    (tmp_path / "list" / "index.json").write_text("[1, 2]")
    with pytest.raises(NotADump, match="not a JSON object"):
        write_report(str(tmp_path / "list"))


def test_explain_of_something_else_than_a_dump_says_what_it_takes(dump):
    def compiled_fn(x):
        return x

    for wrong in (compiled_fn, 42, None):
        with pytest.raises(TypeError, match=r"explain\(\) takes a dump folder") as info:
            explain(wrong)
        assert "prepare_debug" in str(info.value)
    assert "compiled_fn" in _explain_error(compiled_fn)

    class Run:   # what prepare_debug yields carries the folder as .dump_dir
        dump_dir = str(dump)

    assert explain(Run()).dump_dir == str(dump)


def _explain_error(value):
    try:
        explain(value)
    except TypeError as exc:
        return str(exc)
    return ""


def test_explain_displays_inline_in_an_iframe(dump):
    explorer = explain(str(dump))
    shown = explorer._repr_html_()
    assert shown.startswith("<iframe srcdoc=")
    # The whole page is inside the attribute, quotes escaped, so nothing leaks into the notebook.
    inner = shown[len('<iframe srcdoc="'):shown.index('" style=')]
    assert '"' not in inner and "&lt;!DOCTYPE html&gt;" in inner
    assert "Data-dependent branching" in inner
    assert str(dump) in repr(explorer)
    assert explorer.write() == str(dump / "report.html")


def test_code_is_written_plain_with_links_for_the_page_to_colour(dump):
    """The writer escapes and links; colouring is the page's (tests/test_browser.py)."""
    text, page = parse(write_report(str(dump)))
    transformed = page.code["c-0-0-transformed"]
    assert "<span" not in transformed
    assert 'href="#g-0-0-__compiled_fn_1"' in transformed
    assert 'id="src-c-0-0-transformed" data-lang="python"' in text
    assert 'id="src-c-0-0-side" data-lang="side_by_side"' in text
    # the lines shown unfolded are marked for colouring, escaped
    assert '<span class="no">7</span><span class="py">    if b.sum() &lt; 0:</span>' in text
    # Prism's core and Python grammar are inlined, in manual mode
    assert "Prism.languages.python=" in text and "window.Prism.manual = true" in text
    assert "Pygments" not in text


def test_links_name_but_not_the_block_itself():
    html = crosslinks.linked("def f(x):\n    return __compiled_fn_3(x) < 1  # f\n",
                             {"__compiled_fn_3": "g3", "f": "self"}, current="self")
    assert html == ('def f(x):\n    return <a class="xref" href="#g3" data-target="g3">'
                    '__compiled_fn_3</a>(x) &lt; 1  # f\n')
    # names in strings link too: a disassembly keeps its listing in a docstring
    assert 'href="#g3"' in crosslinks.linked('"""LOAD_GLOBAL __compiled_fn_3"""',
                                             {"__compiled_fn_3": "g3"})
    assert crosslinks.linked("a < b & c", None) == "a &lt; b &amp; c"


def test_vendored_prism_is_the_recorded_release_and_can_be_inlined():
    import hashlib

    folder = os.path.join(os.path.dirname(crosslinks.__file__), "vendor", "prism")
    with open(os.path.join(folder, "SHA256SUMS")) as f:
        sums = [line.split() for line in f if line.strip()]
    assert {name for _, name in sums} == {"prism-core.min.js", "prism-python.min.js", "LICENSE"}
    for digest, name in sums:
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        assert hashlib.sha256(data).hexdigest() == digest, name
        # a `</script` inside would end the page's <script> element early
        assert b"</script" not in data.lower(), name
    with open(os.path.join(folder, "LICENSE")) as f:
        assert f.readline().strip() == "MIT LICENSE"
    with open(os.path.join(folder, "README.md")) as f:
        assert "| version | 1.30.0 |" in f.read()


def test_progress_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert type(progress(500, "x", stream=io.StringIO())).__name__ == "_Silent"
    assert type(progress(5, "x", stream=Tty())).__name__ == "_Silent"  # too small to bother
    tqdm = pytest.importorskip("tqdm")
    stream = Tty()
    bar = progress(500, "report", stream=stream)
    assert isinstance(bar, tqdm.tqdm)
    bar.update(250)
    bar.close()
    assert "report" in stream.getvalue()


def test_report_is_copied_and_still_opens(dump, tmp_path):
    """The page needs nothing but itself (and the dump for 'open file' links)."""
    path = write_report(str(dump))
    alone = tmp_path / "alone.html"
    shutil.copy(path, alone)
    text, page = parse(str(alone))
    assert not page.external
    assert "<link" not in text and "@import" not in text


def test_tool_frames_are_dropped_from_torch_tracebacks():
    from dynalens.report import load

    runner_py = os.path.join(load._PACKAGE_DIR, "runner.py")
    text = "\n".join([
        "Graph Break Reason: Data-dependent branching",
        "User code traceback:",
        '  File "<frozen runpy>", line 198, in _run_module_as_main',
        '  File "%s", line 89, in run' % runner_py,
        "    _run_target(target, module)",
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/home/me/train.py", line 9, in step',
        "    if y.sum() > 0:",
        "",
        "more text",
    ])
    kept = load._strip_tool_frames(text)
    assert "runpy" not in kept and "_run_target" not in kept and "^^^" not in kept
    assert 'File "/home/me/train.py", line 9, in step\n    if y.sum() > 0:' in kept
    assert kept.startswith("Graph Break Reason") and kept.endswith("more text")


def test_many_recompile_reasons_are_folded(dump):
    """A loop recompiling N times lists N reasons per compile: show 3, fold the rest."""
    index = json.loads((dump / "index.json").read_text())
    reasons = ["%d/0: L['n'] == %d" % (i, i) for i in range(40)]
    index["compiles"][1]["recompile_reasons"] = reasons
    index["compiles"][0]["guards"]["failures"] = reasons
    (dump / "index.json").write_text(json.dumps(index))
    text, page = parse(write_report(str(dump)))
    landing = text[text.index('id="recompiles"'):text.index('<section class="function"')]
    assert landing.count('<pre class="reason">') == 1 + 1  # the newest of 0/1's, 1/1's one
    assert 'href="#c-0-1-reasons">all 40 reasons' in landing
    assert page.code["c-0-1-reasons"].splitlines() == reasons
    assert page.code["c-0-0-failures"].count("\n") == 39
    assert all(link in page.ids for link in page.local_links)


def test_reasons_split_into_lines_are_rejoined_and_failures_counted(dump):
    index = json.loads((dump / "index.json").read_text())
    index["compiles"][1]["recompile_reasons"] = [
        "0/0: n == 0    # y = x * n  # prog.py:3 in f", "User stack trace:",
        '  File "prog.py", line 3, in f', "    y = x * n",
        "0/1: n == 1    # y = x * n  # prog.py:3 in f", "User stack trace:"]
    index["compiles"][0]["guards"]["failures"] = ["n == 0"] * 5 + ["n == 9"]
    (dump / "index.json").write_text(json.dumps(index))
    model = load_dump(str(dump))
    comp = {c.compile_id: c for c in model.compiles}
    assert comp["0/1"].recompile_reasons == [
        '0/0: n == 0    # y = x * n  # prog.py:3 in f\nUser stack trace:\n  File "prog.py", line 3, '
        'in f\n    y = x * n', "0/1: n == 1    # y = x * n  # prog.py:3 in f\nUser stack trace:"]
    assert comp["0/0"].guard_failures == ["n == 0\n(5 times)", "n == 9"]


def test_resume_globals_are_paired_with_resume_functions():
    from dynalens.report.load import _resume_aliases

    text = "return __resume_at_112_3(a)\nreturn __resume_at_102_2(b)\n"
    two = [{"name": "resume_at_20", "line": 20}, {"name": "resume_at_19", "line": 19}]
    assert _resume_aliases(text, two) == {"resume_at_19": ["__resume_at_102_2"],
                                          "resume_at_20": ["__resume_at_112_3"]}
    # Both branches of an `if` resume at one line: one function name, two globals.
    one = [{"name": "resume_at_19", "line": 19}]
    assert _resume_aliases(text, one) == {"resume_at_19": ["__resume_at_102_2",
                                                           "__resume_at_112_3"]}
    given = [{"name": "resume_at_19", "global_name": "__resume_at_112_3"},
             {"name": "resume_at_20", "line": 20}]
    assert _resume_aliases(text, given) == {"resume_at_19": ["__resume_at_112_3"],
                                            "resume_at_20": ["__resume_at_102_2"]}
