"""``assert a and b < c < d`` (found on 3.12-3.14, _pydatetime's timedelta.__new__): the
chain's cleanup pops and goes on with the raise that the first operand's test jumps to,
while the chain's final test falls into its own copy of the raise; the walker skipped the
one after the cleanup as a copy, so the first test seemed to jump elsewhere and the decompiler
wrote ``if a: assert b < c < d else: assert False``."""


def normalized(s, us):
    assert isinstance(s, int) and 0 <= s < 24 * 3600
    assert isinstance(us, int) and 0 <= us < 1000000
    return s, us


def truthy_then_chain(s):
    assert s and 0 <= s < 7


def message(s):
    assert s is not None and 0 < s <= 10, "out of range"
    return s
