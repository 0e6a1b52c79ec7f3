"""A bare ``except:`` whose clause never falls through (found on 3.8-3.10, asyncio.queues
put/get and bdb.effective): one that re-raises ends a top-tested ``while`` body after the
back edge (3.8/3.9: its own jump back is dead code, dropped), one that returns inside a
``for`` pops the iterator after its POP_EXCEPT, and a try inside the clause has
POP_EXCEPTs of its own that are not the clause's."""


def reraising(self):
    while self.full():
        try:
            self.wait()
        except:
            self.cancel()
            raise
    return 1


def returning(bs):
    for b in bs:
        try:
            b.check()
        except:
            return (b, False)
    return (None, None)


async def nested_try(self, item):
    while self.full():
        putter = self._loop.create_future()
        self._putters.append(putter)
        try:
            await putter
        except:
            putter.cancel()
            try:
                self._putters.remove(putter)
            except ValueError:
                pass
            if not self.full() and not putter.cancelled():
                self._wakeup_next(self._putters)
            raise
    return self.put_nowait(item)
