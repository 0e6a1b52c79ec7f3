# min-python: 3.10
"""A `while` whose body is empty inside an if: 3.10+ test at the top and again at the bottom,
and the bottom test starts the body. (3.8/3.9 thread the if's jump into the loop: not read
yet, issue 12.)"""


def drain(self, whence):
    if whence == 2:
        while self.read(5):
            pass
    return whence


def drain_nested(self, whence, size):
    if whence == 0:
        pass
    elif whence == 2:
        if size < 0:
            while self.read(5):
                pass
        whence = size
    return whence
