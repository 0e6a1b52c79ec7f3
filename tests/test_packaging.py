"""What the package declares: extras a user installs get everything the lens needs quietly."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _extras():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)["project"]["optional-dependencies"]


def _names(requirements):
    return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower() for r in requirements}


def test_torch_extra_brings_numpy():
    # without numpy every lens command prints torch's "Failed to initialize NumPy" warning
    assert {"torch", "numpy"} <= _names(_extras()["torch"])
