# min-python: 3.14
"""Template strings (PEP 750, 3.14): each field keeps the text it was written with, because
that text is a constant in the bytecode (``Interpolation.expression``); conversions, format
specs with nested fields, concatenated t-strings and a template without fields."""


def greeting(name):
    return t"hello {name}"


def conversions_and_specs(x, width):
    return t"{x!r:>{width}} {x!s} {x!a:{width}.{width!r}} {x:.2f}"


def debug_field(value):
    return t"{value=} and {value = !s}"


def spaced_and_concatenated(x):
    return t"a" t"{ x + 1 }" t"b{{"


def no_fields():
    return t"plain"


def awkward_fields(x, y):
    return t"{(x := 3)} {x if y else 2} {(lambda: 1)} {[a for a in y]} {y['k']}"


def multi_line(x):
    return t"""first
{x
}"""


def in_a_call(render, rows):
    return render(t"<ul>{''.join(str(r) for r in rows)}</ul>", strict=True)
