# Shows: two handlers each `if c: raise ... else: return fallback`: 3.12+ lose both `else:
# return`; marked not exact (configparser.RawConfigParser.get: test_configparser, 3.13).
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
