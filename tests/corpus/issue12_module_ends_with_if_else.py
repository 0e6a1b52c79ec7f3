"""A module (and a class body) that ends with an if/else: 3.12+ copies the implicit
``return None`` into the end of the ``if`` body, so the module reads ``if c: a; return``
then ``b``; a module cannot return, so what follows the ``if`` is its ``else``."""
import sys


class Platform:
    if sys.platform == "win32":
        name = "windows"
        sep = "\\"
    else:
        name = "posix"
        sep = "/"


if sys.platform == "win32":
    from os import path as windows_path
    __all__ = [windows_path.__name__]
else:
    from os import sep as unix_sep
    __all__ = [unix_sep]
