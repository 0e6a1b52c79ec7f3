# Shows: a plain class body (3.15: "return None" is LOAD_COMMON_CONSTANT).
class C:
    x = 1
