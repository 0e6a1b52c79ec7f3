"""Code after a statement that 3.12+ copies into the branches that fall into it (found by
CPython's tests on decompiled glob, configparser and plistlib on 3.13)."""


def return_after_if_try(pathname, it):
    # glob.iglob: the handler's `pass` falls into the final return, copied after its
    # POP_EXCEPT; read as `return it` in the handler, the false path lost its return
    if not pathname:
        try:
            s = next(it)
            if s:
                it = [s]
        except StopIteration:
            pass
    return it


def return_constant_after_try(it):
    try:
        next(it)
    except StopIteration:
        pass
    return 0


def handler_else_returns(self, section, option, fallback):
    # configparser.RawConfigParser.get: the two `return fallback` are on different lines,
    # so not copies of one exit; read as copies, both were dropped
    try:
        d = self.unify(section)
    except KeyError:
        if fallback is None:
            raise
        else:
            return fallback
    option = self.xform(option)
    try:
        value = d[option]
    except KeyError:
        if fallback is None:
            raise ValueError(option)
        else:
            return fallback
    return value

