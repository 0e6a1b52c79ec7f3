"""A for loop (with its else) that ends the body of an enclosing loop: 3.12+ threads its
`break` (pop the iterator, jump past the else) straight to the enclosing loop's head."""


def check_methods(cls, *methods):
    mro = cls.__mro__
    for method in methods:
        for base in mro:
            if method in base.__dict__:
                if base.__dict__[method] is None:
                    return NotImplemented
                break
        else:
            return NotImplemented
    return True


def first_matches(groups, wanted):
    found = []
    for group in groups:
        for item in group:
            if item in wanted:
                found.append(item)
                break
    return found
