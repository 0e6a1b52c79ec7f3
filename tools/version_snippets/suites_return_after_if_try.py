# Shows: the return after `if: try/except: pass` (3.12+ copies it into the branches, the
# handler's copy after its POP_EXCEPT) was read as `return` in the handler and dropped for the
# false path (glob.iglob: test_glob failed on decompiled glob, 3.13). Fixed
# (handlers._clause_exit_copy, statements.end_with_detached_exit).
def f(pathname, it):
    if not pathname:
        try:
            s = next(it)
            if s:
                it = [s]
        except StopIteration:
            pass
    return it
