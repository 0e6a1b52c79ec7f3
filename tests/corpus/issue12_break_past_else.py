"""A ``break`` out of a loop that ends an if body with an ``else`` (``if c: for y in ys: ...
break`` / ``else: ...``): from 3.12 the break's jump is threaded past the else, to where the
if body's own jump over the else goes, and read as the end of the body it vanished (3.12/3.13:
not exact; 3.8/3.9: "branches leave different stacks"). torch._dynamo.bytecode_transformation
.assemble and 43 more functions of torch 2.15."""


def break_past_else(xs, ys, g, h, k):
    for x in xs:
        if x:
            for y in ys:
                if y:
                    g(y)
                    break
        else:
            h()
        k()


def break_past_else_no_loop(x, ys, g, h):
    if x:
        for y in ys:
            if y:
                g(y)
                break
    else:
        h()
    return x
