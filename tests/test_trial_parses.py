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
