"""A module docstring."""
import os
from sys import argv
from collections import *

CONSTANT = 42
if argv:
    MODE = 'args'
else:
    MODE = 'none'
for _name in ('a', 'b'):
    globals()[_name] = _name
try:
    import json
except ImportError:
    json = None
VALUES: list = []
del _name
