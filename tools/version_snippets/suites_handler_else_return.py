# Shows: two handlers each `if c: raise ... else: return fallback`: 3.12+ lost both `else:
# return` (configparser.RawConfigParser.get: test_configparser, 3.13): the two returns, the
# same code on different lines, were read as copies of one exit. Fixed (ExitBlocks._key).
def f(self, section, option, fallback):
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
