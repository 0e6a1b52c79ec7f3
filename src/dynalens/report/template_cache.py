"""Keep Jinja2's compiled report template on disk, as Python keeps a module's ``.pyc``.

Compiling ``report.html.j2`` (parse, generate Python, ``compile()``) costs about 50 ms, and it
happens once per process: every `prepare_debug` run of a fresh process paid it at its exit
(issue 13: the lens's overhead on a short workload). The compiled code is stored beside the
template, in ``templates/__pycache__``, and loaded from there next time.

Staleness is ruled out the way Jinja's own bytecode caches do it (its bucket checks a magic
with its format version and Python's major.minor, then the SHA-1 of the template's source),
and the file name also carries Jinja2's version, since another Jinja2 may generate other code
for the same source. A folder that cannot be written (a read-only install) only means the
template is compiled each time, as before: the cache never makes the report fail.
"""

import os
import tempfile

from jinja2 import __version__ as _JINJA_VERSION
from jinja2.bccache import BytecodeCache


class TemplateCache(BytecodeCache):
    """A Jinja2 bytecode cache in one folder; every OS error is a cache miss, never raised."""

    def __init__(self, directory):
        self.directory = directory

    def _path(self, bucket):
        return os.path.join(self.directory, "%s-jinja%s.cache" % (bucket.key, _JINJA_VERSION))

    def load_bytecode(self, bucket):
        try:
            with open(self._path(bucket), "rb") as f:
                bucket.load_bytecode(f)   # resets the bucket when magic or checksum differ
        except Exception:   # missing, unreadable or damaged: compile the template instead
            bucket.reset()

    def dump_bytecode(self, bucket):
        path = self._path(bucket)
        tmp = None
        try:
            os.makedirs(self.directory, exist_ok=True)
            # write aside, then rename: a process reading meanwhile sees the old file or the
            # whole new one, never half of it
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".jinja-", suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                bucket.write_bytecode(f)
            os.replace(tmp, path)
            tmp = None
        except OSError:
            pass
        finally:
            if tmp is not None:
                try:
                    os.remove(tmp)
                except OSError:
                    pass
