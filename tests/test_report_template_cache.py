"""The report template's compiled code kept on disk (report/template_cache.py, issue 13)."""

import os

import pytest

pytest.importorskip("jinja2")

from dynalens.report import render as render_module
from dynalens.report.load import load_dump
from dynalens.report.synthetic import make_dump

_DUMP = []


@pytest.fixture(autouse=True, scope="module")
def _synthetic_dump(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("cache") / "dump")
    make_dump(root, functions=1, compiles_per_function=2)
    _DUMP.append(load_dump(root))
    yield
    _DUMP.clear()


def _page(env):
    """The whole report of a synthetic dump, rendered with `env`'s template."""
    real = render_module._environment
    render_module._environment = lambda base_href: env
    try:
        return render_module.render(_DUMP[0], show_progress=False)
    finally:
        render_module._environment = real


def _refuse_compile(env):
    def compile(*args, **kwargs):
        raise AssertionError("the template was compiled although the cache held it")
    env.compile = compile


def test_second_process_loads_the_compiled_template(tmp_path):
    cache = str(tmp_path / "cache")
    first = _page(render_module._environment("", cache_dir=cache))
    saved = os.listdir(cache)
    assert len(saved) == 1 and saved[0].endswith(".cache")
    env = render_module._environment("", cache_dir=cache)
    _refuse_compile(env)
    assert _page(env) == first


def test_damaged_cache_file_means_compiling_again(tmp_path):
    cache = str(tmp_path / "cache")
    first = _page(render_module._environment("", cache_dir=cache))
    (name,) = os.listdir(cache)
    with open(os.path.join(cache, name), "wb") as f:
        f.write(b"j2 not a cache file")
    env = render_module._environment("", cache_dir=cache)
    compiled = []
    real = env.compile
    env.compile = lambda *a, **k: compiled.append(1) or real(*a, **k)
    assert _page(env) == first
    assert compiled == [1]


def test_unwritable_cache_folder_is_no_error(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    cache = str(blocker / "cache")      # cannot be created: a file is in the way
    plain = _page(render_module._environment("", cache_dir=str(tmp_path / "other")))
    assert _page(render_module._environment("", cache_dir=cache)) == plain
    assert _page(render_module._environment("", cache_dir=cache)) == plain
