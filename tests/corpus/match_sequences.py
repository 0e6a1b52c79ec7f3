# min-python: 3.10
"""match: sequence patterns with and without a star, nested, wildcards only."""


def sequences(seq):
    match seq:
        case []:
            return 'empty'
        case [x]:
            return x
        case [x, y]:
            return x + y
        case [1, [2, inner], 3]:
            return inner
        case [first, *rest]:
            return first, rest
    return None


def stars(seq):
    match seq:
        case [*init, last]:
            return init, last
        case [a, *_, z]:
            return a, z
        case [*_, -1]:
            return 'ends with -1'
        case [0, *_]:
            return 'starts with 0'
        case [_, _, *_]:
            return 'two or more'
        case [*_]:
            return 'any sequence'
    return 'not a sequence'


def tuples(a, b):
    match a, b:
        case 0, 0:
            print('origin')
        case x, 0:
            print('x axis', x)
        case (0, y):
            print('y axis', y)
        case (_, _):
            print('elsewhere')


def middle_star(seq):
    match seq:
        case [a, b, *mid, y, z]:
            return mid
        case [_, [*deep], _]:
            return deep
    return ()
