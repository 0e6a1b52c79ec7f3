# min-python: 3.11
"""A try whose body is an `await` and whose else raises: the else is no part of the body
(3.12+: the throw path's protection runs past it). (3.10 reads the else into the body: not
done yet.)"""


async def aclose(self):
    try:
        await self.athrow(GeneratorExit)
    except (GeneratorExit, StopAsyncIteration):
        pass
    else:
        raise RuntimeError("ignored GeneratorExit")

