# Shows: await (same templates as yield from).
async def f(g):
    return await g()
