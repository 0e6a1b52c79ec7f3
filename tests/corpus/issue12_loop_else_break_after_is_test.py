"""``elif a is b: ... else: break`` ending a ``while True`` body (typing's
_get_typeddict_qualifiers on 3.14): read as ``if not a is b: break`` then the body, which
cannot compile back, since the compiler turns ``not (a is b)`` into ``a is not b``, a test
the other way round; the ``if``/``else`` reading keeps the test as written."""


def qualifiers(annotation_type):
    while True:
        origin = get_origin(annotation_type)
        if origin is Annotated:
            args = get_args(annotation_type)
            if args:
                annotation_type = args[0]
            else:
                break
        elif origin is Required:
            yield Required
            (annotation_type,) = get_args(annotation_type)
        elif origin is ReadOnly:
            yield ReadOnly
            (annotation_type,) = get_args(annotation_type)
        else:
            break


def members(items, wanted):
    while True:
        item = items.pop()
        if item in wanted:
            found(item)
        else:
            break
    return items
