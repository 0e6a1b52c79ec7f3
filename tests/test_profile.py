"""decompiler/profile.py: one profile per CPython 3.8-3.15 whose facts agree with what each
native interpreter's compiler does and with the flags structuring modules still read
(tools/profile_check.py, run on every native CPython found)."""

import os
import subprocess
import sys

import pytest

from native_pythons import native_interpreters
from dynalens.decompiler import profile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")


def test_every_supported_version_has_a_profile_of_booleans():
    for version in profile.VERSIONS:
        facts = profile.profile_for(version).facts()
        assert set(facts) == set(profile.FACTS)
        assert all(value in (True, False) for value in facts.values())
    with pytest.raises(KeyError):
        profile.profile_for((3, 7))
    assert profile.PROFILE.version == tuple(sys.version_info[:2])


def test_facts_change_where_the_compiler_changed():
    p311, p312 = profile.profile_for((3, 11)), profile.profile_for((3, 12))
    assert not p311.cold_handlers and p312.cold_handlers
    assert profile.profile_for((3, 9)).top_tested_while
    assert not profile.profile_for((3, 10)).top_tested_while
    assert p312.return_const and profile.profile_for((3, 13)).return_const
    assert not profile.profile_for((3, 14)).return_const
    assert profile.profile_for((3, 15)).two_slot_iterators
    assert "cold_handlers" in repr(p312) and "cold_handlers" not in repr(p311)
    assert not p311.lined_exit_copies and p312.lined_exit_copies
    assert not p311.expanded_backward_jumps and p312.expanded_backward_jumps
    p313, p314 = profile.profile_for((3, 13)), profile.profile_for((3, 14))
    assert not p313.unbound_exit and p314.unbound_exit
    assert profile.profile_for((3, 10)).match_success_flag and not p311.match_success_flag


@pytest.mark.parametrize("python", native_interpreters())
def test_profile_agrees_with_the_compiler_and_the_flags(python):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONHOME", None)
    done = subprocess.run([python, os.path.join(TOOLS, "profile_check.py")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout
    assert ": 0 disagreement(s)" in done.stdout and "ok   compiler" in done.stdout
