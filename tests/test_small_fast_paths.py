"""Fast paths of render._may_hold_mangled_names (one test on the names joined) and
definitions.arguments_of (no lookup per argument without annotations), each compared with
its slow path on real code objects."""

import ast

from dynalens.decompiler import definitions, render
from real_code import code_objects


def _codes():
    import argparse
    import collections
    import enum
    return code_objects((argparse, collections, enum))


def _mangled_name_by_name(code):
    """The test name by name, without the joined names' shortcut."""
    for name_ in code.co_names + code.co_varnames + code.co_freevars + code.co_cellvars:
        if name_[:1] == "_" and name_[1:2] != "_" and "__" in name_[2:] and \
                not name_.endswith("__"):
            return True
    return any(_mangled_name_by_name(c) for c in code.co_consts if hasattr(c, "co_code"))


def test_mangled_names_shortcut_matches_name_by_name():
    answers = [render._may_hold_mangled_names(code) for code in _codes()]
    assert answers == [_mangled_name_by_name(code) for code in _codes()]
    assert True in answers and False in answers  # (collections' OrderedDict: __root, __map)


def test_arguments_without_annotations_match_the_lookup():
    """Without annotations every argument is made with none; with a table that names none
    of them (the lookup path) the same arguments come out."""
    for code in _codes():
        if not code.co_flags & 1:  # (functions only)
            continue
        bare = definitions.arguments_of(code)
        looked_up = definitions.arguments_of(code, annotations={"not an argument": None})
        assert ast.dump(bare) == ast.dump(looked_up)
