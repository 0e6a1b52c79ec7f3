# min-python: 3.10
"""match: value, singleton, capture and wildcard patterns; guards; the default case."""
import enum


class Color(enum.Enum):
    RED = 1
    GREEN = 2


def literals(x):
    match x:
        case 0:
            return 'int'
        case 1.5:
            return 'float'
        case -3:
            return 'negative'
        case 2j:
            return 'imaginary'
        case -1 - 2j:
            return 'complex'
        case 'text':
            return 'str'
        case b'raw':
            return 'bytes'
        case True:
            return 'true'
        case False:
            return 'false'
        case None:
            return 'none'
    return 'nothing'


def dotted(c):
    match c:
        case Color.RED:
            result = 'red'
        case Color.GREEN if c.value > 1:
            result = 'green'
        case enum.Enum.name:
            result = 'odd'
        case _:
            result = 'other'
    return result


def capture_last(value, log):
    match value:
        case 1:
            log.append('one')
        case other if other > 10 and other < 20:
            log.append(other)
        case other:
            log.append(-other)
    log.append('done')


def default_with_guard(value, flag):
    match value:
        case 'a':
            print('a')
        case _ if flag:
            print('flag')
    print('end')


def walrus_guard(items):
    match items:
        case 'x' if (n := len(items)) > 0:
            return n
        case 'y' if not items or (m := 3):
            return m
    return None


def body_starts_with_if(value, flag):
    match value:
        case {'k': _}:
            return 1
        case 2j:
            if flag:
                return 1


def if_else_in_last_case(value, flag, log):
    match value:
        case True | 1:
            log.append(value)
        case 's' | b'b':
            if flag:
                log.append(flag)
            else:
                raise ValueError(value)


def guard_then_default(value, flag, log):
    match value:
        case False | 0 if flag:
            if flag:
                return 1
        case _:
            log.append(value)
