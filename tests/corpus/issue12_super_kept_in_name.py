"""A ``super(...)`` object kept in a name is a plain call on every version (no attribute is
read off the call itself): unlike ``super().attr`` as a plain call (the module names
``super``, issue12_super_named_by_module), it says nothing about the module, and the
``super().attr`` beside it stays one LOAD_SUPER_ATTR (3.12+)."""


class Plain(object):
    def __init__(self):
        sup = super(Plain, self)
        sup.__init__()
        super().__init__()
        self.kind = super().__class__
