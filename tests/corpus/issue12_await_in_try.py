"""An `await` in a try body: its throw path (CLEANUP_THROW) is protected by the try's handler
and laid out after the code that follows the statement, so the protected range says nothing
about where the body ends (3.12+)."""


async def closing(self, waiter, transport):
    try:
        await waiter
    except:
        transport.close()
        raise
    return transport


async def counted(self):
    async with self.cond:
        await self.block()
        try:
            index = self.count
            if index + 1 == self.parties:
                await self.release()
            else:
                await self.wait()
            return index
        finally:
            self.count -= 1
