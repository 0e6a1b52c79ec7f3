"""The native CPython interpreters found on this machine (PATH, pyenv, uv), as pytest params
for tests that run a stdlib-only tool on every version (tools/versionrunner finds them)."""

import os
import sys

import pytest

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
VERSIONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15")


def native_interpreters():
    """pytest.param(path, id=version) per version found; the running one when none is."""
    sys.path.insert(0, TOOLS)
    try:
        from versionrunner import discover
    finally:
        sys.path.remove(TOOLS)
    found = []
    for version in VERSIONS:
        interpreter = discover.find_native(version)
        if interpreter is not None:
            found.append(pytest.param(interpreter.path, id=version))
    return found or [pytest.param(sys.executable, id="running")]
