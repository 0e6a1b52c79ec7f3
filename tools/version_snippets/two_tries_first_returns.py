# Shows: two try statements in a row whose first handler returns (3.12+: PUSH_EXC_INFO
# stack underflow).
def f(self):
    try:
        self.a()
    except AttributeError:
        return
    try:
        self.close()
    except:
        pass
