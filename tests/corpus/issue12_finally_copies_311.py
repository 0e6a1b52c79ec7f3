# min-python: 3.11
# max-python: 3.11
"""The normal exit's copy of a finally body that holds a try statement, with code after the
try/finally (see issue12_finally_copies.py). From 3.12 the inner statement's handler in that
copy is laid out cold, away from the copy, and the code after it is copied into its exits: not
read yet there."""

def finally_holds_try_finally_then_more(self):
    try:
        self.a()
    finally:
        try:
            self.b()
        finally:
            self.c = None
    return self.d


def finally_holds_try_except(cmd, tmp):
    # the finally body ends with a try/except: its last instruction is that statement's own
    # cleanup (RERAISE 1), copied as it is (_bootsubprocess.check_output)
    try:
        status = run(cmd)
    finally:
        try:
            unlink(tmp)
        except OSError:
            pass
    return status
