"""An ``assert`` inside an ``if`` whose test is an ``in``/``is`` comparison
(pickletools.dis: ``if markobject in before: assert before[-1] is stackslice``). It compiles
to ``if a and not b: raise AssertionError``; one ``assert`` for it needs a ``not`` on an
``is``/``in`` comparison, which the compiler turns into ``is not``/``not in`` (other
instructions), so it came back not exact on every version: it is written as it was, an
``assert`` under an ``if``."""


def under_debug(markobject, before, stackslice):
    if __debug__:
        if markobject in before:
            assert before[-1] is stackslice
    return 1


def with_message(a, b, c):
    if a in b:
        assert c is not None, "no c"


def two_guards(a, b, c):
    if a and b in c:
        assert a is c
    return 2


def plain_assert_still_one(a, b):
    assert a is None or b in a, "one assert"
