# Shows: with of two items, one a super() call, around a bare yield (3.10: SETUP_WITH target;
# 3.14/3.15: DecompilationError at CALL).
def f(self):
    with super().suspend(), self.other():
        yield
