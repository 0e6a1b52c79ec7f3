"""``not not x``: 3.13+ folds the two ``UNARY_NOT`` into the ``TO_BOOL`` they start with,
which then stands alone (elsewhere a ``TO_BOOL`` feeds a conditional jump or a ``not``)."""


def is_expandable(self):
    return not not dir(self.object)


def set_indicator(self):
    db = self.interp.getdebugger()
    self.setvar("<<toggle-debugger>>", not not db)


def flags(a, b):
    both = not not a and b
    return [not not b, not a]
