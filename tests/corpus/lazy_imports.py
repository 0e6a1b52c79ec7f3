# min-python: 3.15
"""Explicit lazy imports (PEP 810, 3.15): IMPORT_NAME's argument carries a flag below the name
index; the statement keeps its ``lazy`` (before, it was written as a plain import and the
module did not verify)."""
lazy import json
lazy import os.path as osp
lazy import xml.dom.minidom
lazy from collections import OrderedDict as Ordered, deque
lazy from . import sibling
import re
from itertools import chain


def uses():
    return json, osp, xml.dom.minidom, Ordered, deque, sibling, re, chain
