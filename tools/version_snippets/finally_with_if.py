# Shows: a finally body holding an if (3.11+): the duplicated finally copy is not matched,
# the if jumps to the wrong place.
def f(self):
    try:
        self.a()
    finally:
        if self.fp:
            self.b()
