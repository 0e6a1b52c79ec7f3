# min-python: 3.10
"""match: mapping patterns (literal and dotted keys, **rest, nested, empty)."""
import os


def mappings(event):
    match event:
        case {'type': 'click', 'pos': [x, y]}:
            return 'click', x, y
        case {'type': 'key', **rest}:
            return rest
        case {1: one, 2.5: two, None: three}:
            return one, two, three
        case {os.sep: sep}:
            return sep
        case {'a': {'b': {'c': deep}}}:
            return deep
        case {**everything}:
            return everything
    return None


def empty_mapping(event):
    match event:
        case {}:
            return 'mapping'
        case _:
            return 'other'
