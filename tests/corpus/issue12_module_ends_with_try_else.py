"""A module that ends with try/except/else: 3.12+ lays the handler out after the else and
copies the implicit ``return None`` after the clause's ``POP_EXCEPT``, so the clause reads
``except ImportError: return`` followed by the else's code; a module cannot return, so
that code is the try's ``else``."""
import sys

for klass in (int, str):
    sys.modules.get(klass.__name__)

try:
    import _asyncio
except ImportError:
    pass
else:
    Future = _CFuture = _asyncio.Future
