# min-python: 3.11
"""An if/else that ends a function, whose else ends with a conditional expression: 3.12+
copies the implicit ``return None`` into the end of the ``if`` body, and the ``else`` leaves
a block boundary before the return, so the join of the conditional expression is not copied
into its branches. Read as ``if c: a; return`` then ``b``, the recompiled join would be.
(3.10 copies the return too and still reads it that way: emit.else_after_implicit_return is
not applied there, it turned glob ``_iglob`` inexact; so the file starts at 3.11.)"""


def save_bool(self, obj):
    if self.proto >= 2:
        self.write(NEWTRUE if obj else NEWFALSE)
    else:
        self.write(TRUE if obj else FALSE)


def chain(self, obj):
    if obj is None:
        self.write(b"N")
    elif self.bin:
        self.write(b"B" if obj else b"b")
    else:
        self.write(b"T" if obj else b"F")
