"""3.8/3.9: an if body that ends with an if/elif whose branches all ``continue``, then code
after the if, at the end of a loop body (ast.NodeTransformer.generic_visit): the elif's
test jumps to the code after the if, and the dead jump the compiler leaves after the first
``continue`` goes there too, so that code follows the if; it was read as the if's else (the
last ``continue`` as the jump over it), a jump to the loop's end in the recompiled code."""


def nested_continues(self, values, AST):
    new_values = []
    for value in values:
        if isinstance(value, AST):
            value = self.visit(value)
            if value is None:
                continue
            elif not isinstance(value, AST):
                new_values.extend(value)
                continue
        new_values.append(value)
    return new_values


def one_level(a, g, h, x, y):
    for v in a:
        if g(v):
            if v is None:
                continue
            elif h(v):
                x(v)
                continue
        y(v)
    return a
