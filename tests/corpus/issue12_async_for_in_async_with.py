"""An async generator whose body is an `async for` inside `async with`: the loop's exit
handler (END_ASYNC_FOR) lies in cold code and jumps past the loop; it is no `break` of an
except clause (3.15's layout)."""


def decorate(self, func, aclosing):
    async def asyncgen_inner(*args, **kwds):
        async with self._recreate_cm():
            async with aclosing(func(*args, **kwds)) as gen:
                async for value in gen:
                    yield value
    return asyncgen_inner
