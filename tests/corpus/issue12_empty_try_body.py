"""A try whose body compiles to nothing (``try: pass``, ``try: ...``): from 3.11 no exception
entry protects anything, so none leads to the handler the compiler still emits, and the walker
ran into it as code ("stack underflow at PUSH_EXC_INFO", from 3.12 also "a construct resumes
where it started"), on 3.11-3.13 for every shape below (empty_tries.py). Nested in a
``finally: pass`` (3.12+: the inner try's handler lies past the outer body) it raised even
with a body."""


def nested_finally(g):
    try:
        try:
            pass
        finally:
            g()
    finally:
        pass


def nested_finally_with_body(x, g):
    try:
        try:
            x()
        finally:
            g()
    finally:
        pass


def empty_finally(g):
    try:
        pass
    finally:
        g()


def empty_except(E, g):
    try:
        pass
    except E:
        g()


def empty_except_else(E, g, k):
    try:
        pass
    except E:
        g()
    else:
        k()


def then_code(g, k):
    try:
        pass
    finally:
        g()
    k()


def except_then_code(E, g, k):
    try:
        pass
    except E:
        g()
    k()


def in_loop(y, E, g, k):
    for x in y:
        try:
            pass
        except E:
            g()
        else:
            k()


def clauses_leave(E, F, k):
    try:
        pass
    except E:
        return 1
    except F:
        raise
    k()


def in_if(c, g, h):
    if c:
        try:
            pass
        finally:
            g()
            h()
    return 2


def in_finally_else(E, g, k, w):
    x = 1
    try:
        try:
            pass
        except E:
            g()
        else:
            k()
    finally:
        w()
    return x


def bare_except():
    try:
        pass
    except:
        pass


def in_elif(c, d, x, y, E):
    if c:
        x()
    elif d:
        try:
            pass
        except E:
            return 1
    else:
        y()
    return 3


def finally_pass_then(k):
    try:
        pass
    finally:
        pass
    k()


def continue_clause(xs, E, k):
    for x in xs:
        try:
            pass
        except E:
            continue
        k(x)


def except_else_finally(E, g, k, z):
    try:
        pass
    except E:
        g()
    else:
        k()
    finally:
        z()
