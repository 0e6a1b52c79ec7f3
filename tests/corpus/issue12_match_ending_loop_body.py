# min-python: 3.10
"""A ``match`` that ends a loop body, a case holding ``continue``: 3.12+ threads the jumps to
the end of the match (the back edge) to the loop head, so the last case fails straight back
to the head and the loop in the last case ends the loop body, its ``break`` threaded there
too (symtable.Class.get_methods)."""

def in_if(children, d):
    for st in children:
        if st.ok:
            match st.type:
                case 1:
                    if st.name == 'g':
                        continue
                    d[st.name] = 1
                case 2:
                    d[st] = 2
    return d

def whole_body(children, d):
    for st in children:
        match st.type:
            case 1:
                if st.name == 'g':
                    continue
                d[st.name] = 1
            case 2:
                d[st] = 2
    return d


def get_methods(children, d):
    for st in children:
        if ok(st.name):
            match st.type:
                case 1:
                    if st.name == 'genexpr':
                        continue
                    d[st.name] = 1
                case 2:
                    scope_name = st.name
                    for c in st.children:
                        if c.name == scope_name and c.type == 1:
                            d[scope_name] = 1
                            break
    return d


# (the cases end with jumps back to the head and a `case _:` follows: the bodies' jumps are
# continues past the default, not the end of the match)
def getmethparlist(params, call_args):
    for param in params:
        match param.kind:
            case 1:
                call_args.append(param.name)
            case 2:
                call_args.append(f'*{param.name}')
            case _:
                raise RuntimeError('Unsupported parameter kind', param.kind)
    return call_args
