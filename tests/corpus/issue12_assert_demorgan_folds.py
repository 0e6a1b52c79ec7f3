"""An assert whose test is an and/or holding ``is``/``in`` comparisons: the decompiler reads
the condition that raises and negates it; ``not`` put back on an ``is`` comparison would be
folded by the compiler's AST optimizer into ``is not`` (another jump), so the negation goes
down to the operands by De Morgan."""


def loop_reading(self, fut):
    if fut is not None:
        assert self._read_fut is fut or (self._read_fut is None and self._closing)
        self._read_fut = None


def not_or_is_not(a, b, c):
    assert not b or a is not c


def in_and(a, b, c):
    assert a in b and (c not in b or a), "message"
