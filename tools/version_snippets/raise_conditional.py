# Shows: an if whose body raises with a conditional expression argument (3.10, 3.12+: the
# POP_JUMP_IF_FALSE of the if lands elsewhere; the top cause on 3.12/3.13).
def f(self, msg=None):
    if self.closed:
        raise ValueError("closed" if msg is None else msg)
