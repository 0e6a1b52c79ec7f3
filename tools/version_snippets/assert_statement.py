# Shows: assert (3.9: jump target of POP_JUMP_IF_TRUE; 3.14+: AssertionError comes from
# LOAD_COMMON_CONSTANT).
def f(x):
    assert x
