"""Exits the compiler copies or moves: breaks replaced by the code after the loop, returns
out of with and try bodies that are not the last statement, try/finally at the end."""


def for_else_break_return(items, total):
    for item in items:
        if item:
            break
    else:
        return -1
    return total


def for_break_else_assigns(items, total):
    for item in items:
        if item:
            break
    else:
        total = 1
    return total


def with_return_in_if(x, manager):
    if x:
        with manager:
            return x
    return None


async def async_with_return_in_if(x, manager):
    if x:
        async with manager:
            return x
    return None


def try_return_in_if(a, v):
    if a:
        try:
            return v()
        except ValueError:
            pass
    else:
        a.b()
    return None


def try_finally_last(x, h):
    try:
        if x:
            h()
        elif x == 2:
            h(x)
    finally:
        h()


def while_else_break_return(n, total):
    while n > 0:
        n -= 1
        if n == 5:
            break
    else:
        total += 1
    return total


def while_break_last_return(n, total):
    while n > 0:
        n -= 1
        if n == 5:
            break
    return total


def while_true_break_last(n, total):
    while True:
        n += 1
        if n > 10:
            break
    total += 1
    return total
