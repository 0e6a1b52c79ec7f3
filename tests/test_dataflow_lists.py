"""The dataflow check follows fresh lists by their contents (decompiler/dataflow_lists.py):
what Dynamo's resume calls do with lists before the call is the same as building the final
lists at the call. Each rule is shown accepting the collapsed form and rejecting a program
that really does something else: the check must stay able to fail."""

import pytest

from dynalens.decompiler.dataflow import SUPPORTED
from test_dataflow import check, code_of  # noqa: F401 (one way to build and check both sides)

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="the dataflow check models 3.11-3.13")


def test_item_and_slice_of_a_fresh_list_are_its_values():
    original = """
        def f(a, b):
            t = [a, b]
            u = t[0:1]
            return g(t[1], u[0])
    """
    assert check(original, "def f(a, b):\n    return g(b, a)\n")
    assert not check(original, "def f(a, b):\n    return g(a, b)\n")
    assert not check(original, "def f(a, b):\n    return g(b, b)\n")


def test_extend_slice_assignment_and_del_item_give_the_final_contents():
    original = """
        def f(a, b, c):
            t = [a]
            t.extend([b, c])
            t[0:] = [t[2], t[0], t[1]]
            del t[-1]
            return g(*t)
    """
    assert check(original, "def f(a, b, c):\n    return g(c, a)\n")
    assert not check(original, "def f(a, b, c):\n    return g(c, a, b)\n")
    assert not check(original, "def f(a, b, c):\n    return g(a, c)\n")


def test_list_handed_to_a_call_is_compared_by_contents_and_sharing():
    original = """
        def f(a, b):
            frames = [[a, b]]
            live = frames[-1]
            del frames[-1]
            return r([], frames, *live)
    """
    assert check(original, "def f(a, b):\n    return r([], [], a, b)\n")
    assert not check(original, "def f(a, b):\n    return r([], [b], a, b)\n")
    assert not check(original, "def f(a, b):\n    return r((), [], a, b)\n")
    # the same list twice is not two lists with the same items: the callee can tell
    shared = "def f(a):\n    t = [a]\n    return r(t, t)\n"
    assert check(shared, "def f(a):\n    u = [a]\n    return r(u, u)\n")
    assert not check(shared, "def f(a):\n    return r([a], [a])\n")


def test_list_that_escaped_is_an_object_again():
    # once g has the list it may keep or change it: what happens to it later is observable
    original = """
        def f(a, b):
            t = [a]
            g(t)
            t.append(b)
            return h(*t)
    """
    assert check(original, """
        def f(a, b):
            u = [a]
            g(u)
            u.append(b)
            return h(*u)
    """)
    assert not check(original, "def f(a, b):\n    g([a])\n    return h(a, b)\n")


def test_list_stored_in_a_real_local_escapes():
    original = "def f(a):\n    x = [a]\n    x.append(a)\n    return g(x)\n"
    assert check(original, "def f(a):\n    x = [a]\n    x.append(a)\n    return g(x)\n")
    assert not check(original, "def f(a):\n    x = [a]\n    return g([a, a])\n")


def test_values_are_taken_when_the_list_is_built_not_when_it_is_used():
    # a list holds the value a name had; reading the name at the call reads the new one
    original = """
        def f(a):
            t = [a]
            a = h(a)
            return g(*t)
    """
    assert not check(original, "def f(a):\n    a = h(a)\n    return g(a)\n")
    assert check(original, "def f(a):\n    t0 = a\n    a = h(a)\n    return g(t0)\n")


def test_calls_inside_the_list_keep_their_order():
    original = """
        def f(a):
            t = [h(a)]
            k()
            return g(*t)
    """
    assert not check(original, "def f(a):\n    k()\n    return g(h(a))\n")
    assert check(original, "def f(a):\n    v = h(a)\n    k()\n    return g(v)\n")


def test_index_out_of_range_is_not_followed():
    # IndexError is raised by the subscript: an event on both sides, never a value
    original = "def f(a):\n    t = [a]\n    return t[1]\n"
    assert check(original, "def f(a):\n    return [a][1]\n")
    assert not check(original, "def f(a):\n    return a\n")


def test_list_built_in_a_loop_stays_an_object():
    # lists grown once per iteration are not followed by contents (every iteration would be a
    # new state); the loop still verifies, and a different loop still differs
    original = """
        def f(xs):
            out = []
            for x in xs:
                out.append(g(x))
            return out
    """
    assert check(original, original)
    assert not check(original, """
        def f(xs):
            out = []
            for x in xs:
                out.append(x)
            return out
    """)
