# min-python: 3.11
"""A for loop that ends an if body inside an enclosing loop, with an elif after: the if body
ends with a jump back to the enclosing loop's head, and 3.12+ threads the inner loop's
``break`` to that head too. The break stays a break and the jump after the loop ends the
if body (no loop else)."""


def getclasstree(classes, unique=False):
    children = {}
    roots = []
    for c in classes:
        if c.__bases__:
            for parent in c.__bases__:
                if parent not in children:
                    children[parent] = []
                if unique and parent in classes:
                    break
        elif c not in roots:
            roots.append(c)
    return roots, children
