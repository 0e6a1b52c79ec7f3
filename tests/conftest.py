"""Shared test setup: make ``src`` importable so the tests run from a plain checkout, without
an install (an editable install, when present, points at the same files)."""

import os
import sys

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)
