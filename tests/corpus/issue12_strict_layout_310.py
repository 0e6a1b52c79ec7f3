# min-python: 3.10
"""A match that ends a loop body, its default case last (tests/test_strict_layout.py)."""


def match_ending_loop_body(params, kinds):
    out = []
    for param in params:
        match param.kind:
            case kinds.POSITIONAL:
                out.append(param.name)
            case kinds.VAR_KEYWORD:
                out.append('**' + param.name)
            case _:
                raise RuntimeError('Unsupported parameter kind', param.kind)
    return out
