"""Shortcuts taken while the lens writes a dump give the answers the long way gives.

``verify`` and ``check_tree`` with ``temporaries`` (generated code, checked by dataflow): when
every recompiled candidate has other local variables than the original, no bytecode
comparison can find them the same, so the dataflow verdict is taken without them
(``verify._bytecode_cannot_match``); asked for its verdict only, verify then skips them for
a source that does not verify too. Here both are asked about decompiled stdlib functions,
as decompiled and with one local renamed (the bytecode then differs, the dataflow may still
match; a local renamed in one place only does not), with the shortcut and without it.

The report looks each distinct identifier of a block up once and finds where the links are
by text (``crosslinks.linked``): the page text must be what looking up every identifier the
scan yields gave."""

import ast
import sys
import sysconfig

import pytest

from dynalens.decompiler import verify as verify_module
from dynalens.decompiler.dataflow import SUPPORTED
from dynalens.decompiler.instructions import shared_disassembly

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="the dataflow check runs on 3.11-3.13")

MODULES = ("textwrap.py", "csv.py", "string.py", "json/decoder.py", "json/encoder.py",
           "fractions.py")
_CodeType = type(compile("", "", "exec"))


def _functions():
    """(code, decompiled text) for the plain functions of MODULES (no closures)."""
    from dynalens.decompiler.render import decompile_code

    root = sysconfig.get_paths()["stdlib"]
    for name in MODULES:
        with open("%s/%s" % (root, name), "rb") as handle:
            module = compile(handle.read(), name, "exec", dont_inherit=True)
        todo = [module]
        while todo:
            code = todo.pop(0)
            todo.extend(c for c in code.co_consts if isinstance(c, _CodeType))
            if code is module or not code.co_flags & 2 or code.co_name.startswith("<") \
                    or code.co_cellvars or code.co_freevars:
                continue
            try:
                yield code, decompile_code(code)
            except Exception:
                continue


def _renamed(text, code, everywhere=True):
    """``text`` with the first local of ``code`` that is no argument renamed in its ``def``
    (``everywhere=False``: at its first use only); None when it has none."""
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) \
        + bool(code.co_flags & 0x08)
    if len(code.co_varnames) <= count:
        return None
    local = code.co_varnames[count]
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            uses = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == local]
            for use in uses if everywhere else uses[:1]:
                use.id = local + "_renamed"
            return ast.unparse(tree) + "\n" if uses else None
    return None


def _cases():
    cases = []
    for code, text in _functions():
        cases.append((code, text))
        for everywhere in (True, False):
            renamed = _renamed(text, code, everywhere)
            if renamed is not None:
                cases.append((code, renamed))
    return cases


def _verdicts(cases):
    out = []
    for code, text in cases:
        differences, _ = verify_module.check_tree(code, text, temporaries=True)
        out.append([(d.code, d.compiled is None, d.line, d.difference, d.reach, d.at)
                    for d in differences])
        for shared in (False, True):
            if shared:
                with shared_disassembly():
                    result = verify_module.verify(code, text, temporaries=True)
            else:
                result = verify_module.verify(code, text, temporaries=True)
            compiled = result.compiled
            out.append((result.exact, result.difference, result.how,
                        None if compiled is None else verify_module._qualname(compiled)))
            if shared:
                with shared_disassembly():
                    verdict = verify_module.verify(code, text, temporaries=True,
                                                   verdict_only=True)
                assert bool(verdict) == bool(result)
                assert verdict.how == result.how
    return out


def test_dataflow_first_when_bytecode_cannot_match_gives_the_same_verdicts(monkeypatch):
    cases = _cases()
    taken = [0]
    cannot_match = verify_module._bytecode_cannot_match

    def counted(code, candidates):
        answer = cannot_match(code, candidates)
        taken[0] += answer
        return answer

    monkeypatch.setattr(verify_module, "_bytecode_cannot_match", counted)
    fast = _verdicts(cases)
    monkeypatch.setattr(verify_module, "_bytecode_cannot_match", lambda code, candidates: False)
    slow = _verdicts(cases)
    verdicts = slow[1::3]
    # (not vacuous: the shortcut was taken often, and both verdicts came out of it)
    assert len(cases) > 150 and taken[0] > 80
    assert sum(1 for v in verdicts if v[2] == "dataflow") > 30
    assert sum(1 for v in verdicts if not v[0]) > 30
    assert fast == slow



def _linked_one_by_one(code, links, current=None):
    """crosslinks.linked as it was: each identifier looked up where it stands."""
    import html

    from dynalens.report.crosslinks import _IDENTIFIER, _anchor

    pieces, pos = [], 0
    for match in _IDENTIFIER.finditer(code):
        target = links.get(match.group(0))
        if target is None or target == current:
            continue
        pieces.append(html.escape(code[pos:match.start()], quote=False))
        pieces.append(_anchor(match.group(0), target))
        pos = match.end()
    pieces.append(html.escape(code[pos:], quote=False))
    return "".join(pieces)


def test_links_looked_up_once_per_name_give_the_same_page_text():
    """The report looks each distinct identifier up once and finds the places of the links
    by text (crosslinks.linked): the same HTML as looking up every identifier the scan
    yields, on stdlib source with a link table of its own names (one of them the current
    block), a graph's uuid-suffixed name among them, and names right after digits, letters
    and non-ASCII letters."""
    from dynalens.report.crosslinks import linked
    from dynalens.report.render import LinkTable

    root = sysconfig.get_paths()["stdlib"]
    compared = 0
    for name in MODULES:
        with open("%s/%s" % (root, name), encoding="utf-8") as handle:
            text = handle.read()
        text += "\n__compiled_fn_3_0a1b2c3d_0a1b_0a1b_0a1b_0a1b2c3d4e5f(x)  # <a & b>\n"
        # where an identifier starts: after digits and non-ASCII letters, not after a letter
        text += "x1self 1self self1 _self \u00e9self self\u00e9 9_self \u00b2self a.self self\n"
        words = sorted(set(w for w in text.split() if w.isidentifier()))
        links = LinkTable((w, "id-%d" % i) for i, w in enumerate(words[::7]))
        links["__compiled_fn_3"] = "graph-3"
        links["self"] = "id-self"
        for current in (None, links[words[0]]):
            assert linked(text, links, current) == _linked_one_by_one(text, links, current)
            for line in text.splitlines()[:200]:
                assert linked(line, links, current) == _linked_one_by_one(line, links,
                                                                          current)
                compared += 1
    assert compared > 1000


def test_readable_and_constants_read_dis_records_from_the_shared_disassembly():
    """readable's _touched_locals and _global_names and constants' _code_values read the
    instructions from instructions.raw_instructions (decoded once per code object within
    function_source's shared_disassembly): the same answers as from dis.get_instructions,
    on every code object of the stdlib modules above."""
    import dis

    from dynalens.lens import constants, readable

    def touched(code):
        count = code.co_argcount + code.co_kwonlyargcount \
            + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
        used = set(code.co_varnames[:count])
        for ins in dis.get_instructions(code):
            if "FAST" in ins.opname:
                used.update(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
        return used & set(code.co_varnames)

    def global_names(code):
        return {ins.argval for ins in dis.get_instructions(code)
                if ins.opname.endswith(("_GLOBAL", "_GLOBALS", "_NAME"))
                and isinstance(ins.argval, str)}

    def code_values(code):
        found, previous = set(), None
        for ins in dis.get_instructions(code):
            if previous is not None and ins.opname != "MAKE_FUNCTION":
                found.add(previous)
            previous = ins.arg if ins.opname == "LOAD_CONST" and hasattr(ins.argval, "co_code") \
                else None
        return found | ({previous} if previous is not None else set())

    root = sysconfig.get_paths()["stdlib"]
    checked = 0
    for name in MODULES:
        with open("%s/%s" % (root, name), "rb") as handle:
            todo = [compile(handle.read(), name, "exec", dont_inherit=True)]
        while todo:
            code = todo.pop()
            todo.extend(c for c in code.co_consts if isinstance(c, _CodeType))
            with shared_disassembly():
                assert readable._touched_locals(code) == touched(code)
                assert readable._global_names(code) == global_names(code)
                if sys.version_info >= (3, 11):
                    assert constants._code_values(code) == code_values(code)
            checked += 1
    assert checked > 100


def test_comment_rows_of_text_without_a_hash_sign_are_none():
    """readable._comment_rows answers text with no ``#`` without tokenizing it: what the
    tokenizer finds there, on decompiled stdlib functions (most have no comment)."""
    from dynalens.lens import readable

    texts = [text for _, text in _functions()]
    texts += [text + "x = '#'  # a comment\n" for text in texts[:20]]
    assert sum(1 for text in texts if "#" not in text) > 50
    for text in texts:
        assert readable._comment_rows(text) == readable._tokenized_comment_rows(text)


def test_decompiled_once_gives_what_decompiling_again_gives(monkeypatch):
    """Within source.decompiled_once (a dump being written), a code object decompiled again
    under the same name is the text decompiling it gives, without decompiling it again; under
    another name, or outside the block, it is decompiled."""
    from dynalens.lens import source

    codes = [code for code, _ in _functions()][:30]
    fresh = [source._decompile(code, "f_%d" % i) for i, code in enumerate(codes)]
    calls = [0]
    decompile = source.decompile

    def counted(*args, **kwargs):
        calls[0] += 1
        return decompile(*args, **kwargs)

    monkeypatch.setattr(source, "decompile", counted)
    with source.decompiled_once():
        first = [source._decompile(code, "f_%d" % i) for i, code in enumerate(codes)]
        again = [source._decompile(code, "f_%d" % i) for i, code in enumerate(codes)]
        assert calls[0] == len(codes)
        source._decompile(codes[0], "another_name")
        assert calls[0] == len(codes) + 1
    assert first == again == fresh
    source._decompile(codes[0], "f_0")
    assert calls[0] == len(codes) + 2


def test_rows_that_end_in_a_comment_hold_a_hash_sign():
    """readable.line_comments tokenizes a file only when a statement's row holds a '#': what
    it relies on is that every row _comment_rows finds does (on decompiled stdlib functions
    with comments and '#' strings added), and a statement row with a comment of its own gets
    its user line after a ';'."""
    from dynalens.lens import readable

    for _, text in _functions():
        lines = text.split("\n")
        variants = [text, "\n".join(line + "  # note" if line.strip().startswith("return")
                                    else line for line in lines),
                    "\n".join(line.replace("'", "'#", 1) for line in lines)]
        for variant in variants:
            rows = readable._comment_rows(variant)
            assert all("#" in variant.split("\n")[row - 1] for row in rows)

    def f(a):
        b = a + 1  # the user's line
        c = "#" + str(b)
        return c

    text = "def f(a):\n    b = a + 1  # noted\n    c = '#' + str(b)\n    return c\n"
    compiled = compile(text, f.__code__.co_filename, "exec").co_consts[0]
    marked = readable.line_comments(text, "f", f.__code__, compiled).split("\n")
    assert marked[1].startswith("    b = a + 1  # noted; ")
    assert marked[2].startswith("    c = '#' + str(b)  # ")
    assert marked[3].startswith("    return c  # ")


def test_defines_says_what_the_def_pattern_says():
    """source._defines finds ``def name(`` at a line's start without compiling a pattern for
    the name: the answer the pattern gives, on decompiled stdlib functions asked about their
    own names, a prefix of them, a longer name and a name they call, and on indented, async,
    spaced and wrapped defs."""
    import re

    from dynalens.lens import source

    def pattern(src, name):
        return re.search(r"^\s*(async\s+)?def\s+%s\s*\(" % re.escape(name), src, re.M) \
            is not None

    cases = []
    for code, text in _functions():
        name = code.co_name
        cases += [(text, name), (text, name[:-1] or "x"), (text, name + "_"), (text, "len")]
    for src in ("def f(a):\n    pass\n", "    def f(a): pass\n", "async def f(): pass\n",
                "def f (a): pass\n", "x = 1\ndef  f(): pass\n", "def fg(): pass\n",
                "# def f(): pass\n", "class C:\n\n    def f(self): pass\n", "def\nf(): pass\n"):
        cases.append((src, "f"))
    assert sum(1 for src, name in cases if pattern(src, name)) > 100
    for src, name in cases:
        assert source._defines(src, name) == pattern(src, name), (src, name)


def test_private_files_are_made_as_mkstemp_makes_them(tmp_path, monkeypatch):
    """atomic._private_file, the temporary file a dump file is written to before its rename:
    created exclusively with mkstemp's mode (so the dump's files keep theirs), a name another
    file has is skipped, and a file written through it is whole and alone in the folder."""
    import itertools
    import os
    import stat
    import tempfile

    from dynalens.lens import atomic

    fd, path = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=str(tmp_path))
    os.close(fd)
    wanted = stat.S_IMODE(os.stat(path).st_mode)
    os.unlink(path)
    monkeypatch.setattr(atomic, "_private_numbers", itertools.count())
    (tmp_path / (".tmp-%d-0.part" % os.getpid())).write_text("someone else's")
    fd, path = atomic._private_file(str(tmp_path))
    os.close(fd)
    assert os.path.basename(path) == ".tmp-%d-1.part" % os.getpid()
    assert stat.S_IMODE(os.stat(path).st_mode) == wanted
    os.unlink(path)
    atomic.write_text(str(tmp_path / "a.py"), "x = 1\n")
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
    assert stat.S_IMODE(os.stat(str(tmp_path / "a.py")).st_mode) == wanted
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp-%d-0.part" % os.getpid(),
                                                          "a.py"]
