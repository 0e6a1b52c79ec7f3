# min-python: 3.11
"""``elif c: if d is not e: ...; break`` then ``else: ...`` last in a loop body: 3.12+
threads the inner if's false jump to the loop head; read as ``if not (d is not e): continue``
it would fold to ``d is e`` (another jump), so it stays an if whose end goes back to the head,
and the code after the elif body is its else."""


def find_data_type(bases, EnumType):
    data_types = set()
    for chain in bases:
        candidate = None
        for base in chain.__mro__:
            if base is object:
                continue
            elif isinstance(base, EnumType):
                if base._member_type_ is not object:
                    data_types.add(base._member_type_)
                    break
            elif "__new__" in base.__dict__:
                data_types.add(candidate or base)
                break
            else:
                candidate = candidate or base
    return data_types


def not_in_elif(items, seen, out):
    for x in items:
        if x is None:
            continue
        elif x:
            if x not in seen:
                out.append(x)
                break
        else:
            out.append(None)
    return out


def scan(items, modules, m):
    # `x is not None` is a jump of its own (3.11+): `if not (x is not None): continue` folds
    # nothing, so the test reads as a continue there
    for what, name in items:
        if what == "store":
            m.names[name] = 1
        elif what == "import":
            mm = modules.get(name)
            if mm is not None:
                m.names.update(mm.names)
                if mm.code is None:
                    m.stars[name] = 1
            else:
                m.stars[name] = 1
        else:
            raise RuntimeError(what)
