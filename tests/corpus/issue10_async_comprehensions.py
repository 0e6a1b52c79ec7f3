"""Asynchronous list/set/dict comprehensions in async functions, which 3.12+ compile inline
(PEP 709) around GET_ANEXT instead of FOR_ITER."""


async def set_of_awaited(xs):
    return {await x async for x in xs}


async def set_of_items(xs):
    return {x async for x in xs}


async def filtered_list(xs, limit):
    return [x * 2 async for x in xs if x < limit]


async def dict_of_items(xs):
    return {x: str(x) async for x in xs}


async def nested(xs, ys):
    return [(x, y) async for x in xs for y in ys]


async def after_statement(xs):
    total = 0
    found = [x async for x in xs]
    for x in found:
        total += x
    return total
