"""if/elif/else whose else raises and whose other branches go on to a short block that returns
(issue 12). 3.10 copies that block into every branch that falls through and drops the
original (nothing falls into it after the raising else); normalization folds the copies back
into jumps to the last one, which ends a branch of the else. The if body gets its own copy
and the else runs to the end."""


def check_level(level, names):
    if isinstance(level, int):
        rv = level
    elif str(level) == level:
        if level not in names:
            raise ValueError("Unknown level: %r" % level)
        rv = names[level]
    else:
        raise TypeError("Level not an integer or a valid string: %r" % (level,))
    return rv


def align(kind, body, fill, minimumwidth):
    padding = fill * (minimumwidth - len(body))
    if kind == '<':
        result = body + padding
    elif kind == '>':
        result = padding + body
    elif kind == '=':
        result = padding + body
    else:
        raise ValueError('Unrecognised alignment field')
    return result
