# min-python: 3.10
"""match statements in loops, at module level, in classes, nested, with globals."""
counter = 0
match counter:
    case 0:
        state = 'zero'
    case [_, *_]:
        state = 'sequence'
    case _:
        state = 'other'


def in_loop(commands):
    total = 0
    for command in commands:
        match command:
            case 'stop':
                break
            case 'skip':
                continue
            case ['add', n]:
                total += n
            case ['sub', n]:
                total -= n
    else:
        return -1
    return total


def while_loop(stack):
    while stack:
        match stack.pop():
            case None:
                continue
            case [head, *tail]:
                stack.extend(tail)
            case {'x': x}:
                return x


def nested(a, b):
    match a:
        case [x]:
            match b:
                case [y]:
                    return x, y
                case _:
                    return x
        case {'k': v}:
            try:
                return v()
            except ValueError:
                pass
    return None


def global_capture(value):
    global counter
    match value:
        case [counter]:
            pass
        case _:
            counter = None


def closure(value):
    captured = None

    def inner():
        nonlocal captured
        match value:
            case (captured, 1):
                return True
        return False
    return inner


class Config:
    match counter:
        case 0:
            mode = 'default'
        case [1, *_]:
            mode = 'listed'
        case _:
            mode = 'custom'


def last_statement(obj, out):
    match obj:
        case [x]:
            out.append(x)
        case str(s):
            out.append(s)


def break_in_case(items, h):
    for item in items:
        match item:
            case 1 if h:
                pass
            case 2:
                break
            case -2:
                pass
        h()


def guarded_wildcard(value, h, g):
    while g:
        match value:
            case 'a':
                return 1
            case _ if h and g:
                return 2
            case _:
                h(0)
        g()
    h(2)


async def walrus_subject(x, fetch):
    match (n := await fetch(x)):
        case [y] if await fetch(y):
            return n
        case {'k': z}:
            async with fetch:
                return z
    return None


def generator_subject(x):
    match (yield x):
        case 1:
            yield 2
        case [*r]:
            yield from r


def in_try_finally(x, h):
    try:
        match x:
            case 1:
                h()
            case [a]:
                h(a)
    finally:
        h()
