# Shows: return inside with (3.14/3.15: SWAP stack underflow; asyncio _ThreadSafeHandle.cancel).
def f(self):
    with self._lock:
        return self.cancel()
