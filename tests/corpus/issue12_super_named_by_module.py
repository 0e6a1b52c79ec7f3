"""A module whose top scope names ``super``: 3.12+ then compiles ``super().m()`` as a plain
call instead of LOAD_SUPER_ATTR (the compiler asks the module's symbol table), so a method
decompiled alone gets an ``if False: super`` header that puts the name back there."""

_safe_super = super


class Mixin(object):
    def __init__(self, /, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.count = 0

    def reset(self, value):
        super(Mixin, self).reset(value)
        return super().value
