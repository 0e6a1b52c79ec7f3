"""``try: return v / finally: f()`` inside a ``with`` or a loop (3.12/3.13): with the
handlers put back (block_order.py), the normal exit's copy of the finally body jumps to the
with's exit (or the loop's iterator pop), which returns the value; the value went through a
temporary returned after the statement (torch._higher_order_ops.utils _hop_compile_and_call,
a common shape of context-manager wrappers)."""


def in_with(fn, env, s):
    with env() as backend:
        old = s(0)
        try:
            return fn(backend)
        finally:
            s(old)


def in_with_no_target(fn, env, s):
    with env():
        try:
            return fn()
        finally:
            s()


def in_loop(fn, s):
    for x in fn:
        try:
            return fn(x)
        finally:
            s()


def in_two_withs(fn, a, b, s):
    with a, b:
        try:
            return fn()
        finally:
            s()
