"""Coroutines, async generators, async for and async with."""


async def fetch(session, url):
    async with session.get(url) as response:
        return await response.text()


async def many(session, urls):
    results = []
    async for item in session.stream(urls):
        results.append(await item)
    async with session.lock() as a, session.other():
        pass
    return results


async def agen(items):
    for item in items:
        yield await item
