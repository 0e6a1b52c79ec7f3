# min-python: 3.11
"""A try/finally whose handler also protects cold code of statements in its body (an
await's throw path, the cleanup of a nested finally handler), laid out after the warm
code: the try body ends where the warm code it protects does, a choice point
(choices.FINALLY_WARM_END) the retry takes (asyncio BaseEventLoop.shutdown_default_executor,
Task.__eager_start)."""


async def shutdown(self, future, timeout=None):
    thread = make(future)
    try:
        await future
    finally:
        thread.join(timeout)
    if thread.is_alive():
        warn(timeout)


def eager_start(self, prev_task):
    try:
        register(self)
        try:
            self.run(None)
        finally:
            unregister(self)
    finally:
        try:
            curtask = swap(prev_task)
            assert curtask is self
        finally:
            if self.done():
                self = None
            else:
                register_task(self)
