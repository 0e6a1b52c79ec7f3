# min-python: 3.10
"""match: class patterns (positional, keyword, nested, dotted class, no arguments)."""
import collections

Point = collections.namedtuple('Point', 'x y')


class Shape:
    __match_args__ = ('kind', 'size')

    def __init__(self, kind, size):
        self.kind = kind
        self.size = size


def classes(obj):
    match obj:
        case Point(0, 0):
            return 'origin'
        case Point(x=0, y=y):
            return y
        case Point(x, y=0):
            return x
        case Shape('square', size=Point(w, h)):
            return w * h
        case Shape(kind=k, size=_):
            return k
        case collections.OrderedDict():
            return 'ordered'
        case int() | float() as number:
            return number
        case str(text):
            return text
    return None


def nested_class(items):
    match items:
        case [Point(x1, y1), Point(x2, y2) as second]:
            return x1 + x2, y1 + y2, second
        case {'shape': Shape(size=[*sizes])}:
            return sizes
    return None
