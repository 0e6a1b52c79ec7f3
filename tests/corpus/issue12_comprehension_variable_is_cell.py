"""An inlined comprehension (3.12+) whose variable has the name of a cell of the function
(functools ``_c3_mro``): inside the comprehension the name is a plain local on the cell's
slot, and 3.13+ reads it with LOAD_FAST, the instruction that also loads a cell for a
closure."""


def c3(cls, abcs, explicit_bases):
    abstract_bases = []
    for base in abcs:
        if issubclass(cls, base) and not any(issubclass(b, base) for b in cls.__bases__):
            abstract_bases.append(base)
    explicit = [c3(base, abcs, []) for base in explicit_bases]
    return explicit + [lambda: base]
