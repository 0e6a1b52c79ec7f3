"""A try statement that ends an if body, whose handlers 3.12+ lay out after everything: its
protected range runs past the if (over the cold handlers), and a try body that is itself a
try is protected by the inner handler only."""


def module_of(module, depth, modules, name_of, frame_of):
    if module is None:
        try:
            try:
                return modules[name_of(depth)]
            except AttributeError:
                return modules[frame_of(depth)]
        except KeyError:
            pass
    else:
        raise TypeError("Expected a module or None")
