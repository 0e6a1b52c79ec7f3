"""A progress bar for long report generation, shown only to a person watching a terminal.

tqdm is used when installed (it is in the ``report`` extra); without it, or when stderr is not a
terminal (CI logs, pipes, notebooks), progress is silent so that logs stay clean.
"""

import sys


class _Silent:
    def update(self, n=1):
        pass

    def close(self):
        pass


def progress(total, desc, enabled=None, stream=None):
    """Return an object with ``update(n)`` and ``close()``.

    ``enabled=None`` means: only when ``stream`` (default stderr) is a terminal and the work is
    large enough for a bar to be worth the noise.
    """
    stream = stream if stream is not None else sys.stderr
    if enabled is None:
        isatty = getattr(stream, "isatty", None)
        enabled = bool(isatty and isatty()) and total >= 50
    if not enabled:
        return _Silent()
    try:
        from tqdm import tqdm
    except ImportError:
        return _Silent()
    return tqdm(total=total, desc=desc, unit="block", file=stream, leave=False)
