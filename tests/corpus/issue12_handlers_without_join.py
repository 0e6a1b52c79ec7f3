"""Handlers that never come back to the code after their statement (no join to read), which
3.12+ lays out after all other code and the walker reads put back at the end of their
statement (block_order.py): every clause returns; a ``finally``; a ``with`` whose body
returns, the value under the exit call; a clause that falls off into a copy of the code after
the statement (typing.final, glob.iglob), after an ``else`` (_pyio.FileIO.seekable), or the
code after the statement laid out after the clause (asyncio.futures._get_loop)."""


def every_clause_returns(a, b):
    try:
        x = a()
    except ValueError:
        return 1
    except KeyError:
        return 2
    b(x)
    return x


def try_finally(a, b):
    try:
        a()
    finally:
        b()
    return a


def with_returning(cm, a, b):
    if cm:
        with cm:
            return a()
    return b()


def clause_falls_into_copy(f):
    try:
        f.x = True
    except (AttributeError, TypeError):
        pass
    return f


def clause_falls_into_copy_after_else(self):
    if self.s is None:
        try:
            self.tell()
        except OSError:
            self.s = False
        else:
            self.s = True
    return self.s


def code_after_laid_out_after_clause(fut):
    try:
        get = fut.get
    except AttributeError:
        pass
    else:
        return get()
    return fut.loop


def finally_with_branch(self):
    try:
        self.x()
    finally:
        if self.fp:
            self.close()


def else_returns_code_after_laid_out_after_clause(list_obj, items):
    try:
        extend = list_obj.extend
    except AttributeError:
        pass
    else:
        extend(items)
        return
    append = list_obj.append
    for item in items:
        append(item)

