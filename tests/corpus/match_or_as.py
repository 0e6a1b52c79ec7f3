# min-python: 3.10
"""match: or-patterns (captures in any order, nested) and as-patterns."""


def alternatives(cmd):
    match cmd:
        case 'north' | 'south' | 'east' | 'west':
            return 'move'
        case ['go', ('north' | 'south') as direction]:
            return direction
        case [x, 0] | [0, x]:
            return x
        case [a, b, 1] | [b, a, 2]:
            return a - b
        case (1 | 2) | (3 | 4):
            return 'small'
        case {'k': (1 | 2) as v} | [_, v]:
            return v
        case [_, _] as pair:
            return pair
        case (_ as whole) if whole:
            return whole
    return None


def or_last(value):
    match value:
        case 0 | 1:
            print('bit')
        case [*_] | {}:
            print('container')


def or_with_rest(value):
    match value:
        case {1: _, **rest} | [rest, 1.5]:
            return rest


def or_last_returns(value):
    match value:
        case True as flag:
            raise ValueError(flag)
        case [] | b'':
            return 1
