"""Trial parses (a condition's chunks, a value, a match) reject what does not fit by the
decompiler's own signals (NotAChunk, ChunkEnd, DecompilationError); a Python error raised
inside one is a bug and must surface, not read as "not a match" (issue 12, step 3)."""

import pytest

from dynalens.decompiler import render
from dynalens.decompiler.errors import DecompilationError


def _sample(a, b):
    if a < b and b:
        return 1
    return 2


@pytest.mark.parametrize("error", [IndexError, AttributeError, KeyError, TypeError])
def test_an_error_inside_a_chunk_trial_surfaces(monkeypatch, error):
    trials = []

    def broken_walk(self, *args, **kwargs):
        if kwargs.get("chunk_mode"):
            trials.append(args[0])
            raise error("a bug inside the trial")
        return real_walk(self, *args, **kwargs)

    real_walk = render.CodeWalker.walk
    monkeypatch.setattr(render.CodeWalker, "walk", broken_walk)
    with pytest.raises(DecompilationError) as info:
        render.decompile_code(_sample.__code__, strict=True)
    assert trials  # the chunk reader did try
    message = str(info.value)
    assert "internal error: %s:" % error.__name__ in message and "a bug inside the trial" in message


def test_the_sample_decompiles_without_the_bug():
    assert "if a < b and b:" in render.decompile_code(_sample.__code__, strict=True)


# -- a rejected trial leaves nothing behind -------------------------------------------------------

def _state(walker):
    """What a parse may change on the walker and its session, as comparable values (declared
    globals and import hints are facts about the bytecode, kept whoever read them)."""
    session = walker.session
    return {
        "made": walker.made, "copied": walker.copied, "disordered": walker.disordered,
        "temps": session.temp_count,
        "fallbacks": set(session.fallbacks), "cleanups": dict(walker.cleanup_starts),
        "fallthrough": dict(walker.fallthrough), "cold_joins": set(walker.cold_joins),
    }


def _rejected_trials_leave_nothing(monkeypatch, codes):
    """Decompile ``codes`` with every chunk / value trial watched; return the trials that
    were rejected (None) but changed the walker's state, and how many were rejected."""
    from dynalens.decompiler import branches
    leaks, rejected = [], [0]

    def watched(method):
        def trial(self, *args, **kwargs):
            before = _state(self)
            result = method(self, *args, **kwargs)
            if result is None:
                rejected[0] += 1
                after = _state(self)
                changed = sorted(k for k in before if before[k] != after[k])
                if changed:
                    leaks.append((self.code.co_name, method.__name__, changed))
            return result
        return trial

    for name in ("read_chunk", "read_value"):
        # (functions of branches.py, called through the module: the patch reaches every call)
        monkeypatch.setattr(branches, name, watched(getattr(branches, name)))
    for code in codes:
        try:
            render.decompile_code(code)
        except DecompilationError:
            pass
    return leaks, rejected[0]


def test_rejected_trials_leave_the_walk_state_as_it_was(monkeypatch):
    import contextlib
    import mimetypes
    import os.path
    import textwrap
    codes = []
    for module in (contextlib, mimetypes, textwrap, os.path):
        with open(module.__file__) as handle:
            top = compile(handle.read(), module.__file__, "exec")
        todo = [top]
        while todo:
            code = todo.pop()
            codes.append(code)
            todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
    leaks, rejected = _rejected_trials_leave_nothing(monkeypatch, codes)
    assert rejected > 100  # the modules exercise the trials
    assert not leaks, leaks[:10]


def test_a_failed_first_reading_leaves_no_temporaries_for_the_relayout(monkeypatch):
    # Generated code whose first reading fails is read again with its handlers moved
    # (generated_layout.py); what the first reading took from the session (temporary
    # numbers, stubs of nested code) must not carry over. Simulated: the first walk takes two
    # temporaries and fails, the relayout "moves" nothing but counts as relaid.
    from dynalens.decompiler import render as module

    def f(a):
        return a

    real_walk, real_move = module.CodeWalker.walk, module.move_jumped_over_handlers
    calls = []

    def walk(self, start, end, stack, ctx, *rest, **kwargs):
        if not calls:
            calls.append("first")
            self.new_temp(), self.new_temp()
            self.fail("the first reading does not fit", self.instrs[0])
        return real_walk(self, start, end, stack, ctx, *rest, **kwargs)

    def move(instrs, entries):
        return list(instrs), entries  # a new list: the walker counts it as relaid

    monkeypatch.setattr(module.CodeWalker, "walk", walk)
    monkeypatch.setattr(module, "move_jumped_over_handlers", move)
    session = module.Session()
    body = module.decompile_body(f.__code__, "function", session)
    assert calls and session.temp_count == 0
    assert "return a" in module.unparse(body)


# -- a trial refuses a statement before walking it --------------------------------------------

def _if_body_starts_with_a_loop(a, b):
    if a:
        for x in b:
            a.append(x * 2)
            b.discard(x + 1)
    return a


def test_a_chunk_trial_refuses_a_for_loop_before_walking_its_body(monkeypatch):
    # The condition reader tries a chunk at the if body's first instruction; when the body
    # starts with a for loop, the trial cannot be a chunk (the loop is a statement), and the
    # loop's body must not be walked inside the trial only to be thrown away.
    from dynalens.decompiler import branches
    inside_trial, walked_in_trial = [False], []
    real_read_chunk, real_walk = branches.read_chunk, render.CodeWalker.walk

    def read_chunk(walker, *args, **kwargs):
        inside_trial[0] = True
        try:
            return real_read_chunk(walker, *args, **kwargs)
        finally:
            inside_trial[0] = False

    def walk(self, start, end, *args, **kwargs):
        if inside_trial[0] and not kwargs.get("chunk_mode"):
            walked_in_trial.append((start, end))  # a nested walk: the loop's body
        return real_walk(self, start, end, *args, **kwargs)

    monkeypatch.setattr(branches, "read_chunk", read_chunk)
    monkeypatch.setattr(render.CodeWalker, "walk", walk)
    text = render.decompile_code(_if_body_starts_with_a_loop.__code__, strict=True)
    assert "for x in b:" in text and "dynalens" not in text
    assert walked_in_trial == []
