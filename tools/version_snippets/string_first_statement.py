# Shows: 3.14+ decides "has a docstring" by the CO_HAS_DOCSTRING flag (0x4000000), not by
# co_consts[0] being a str: a function whose first constant is a string gets a made-up docstring.
def f(x):
    return "text" + x
