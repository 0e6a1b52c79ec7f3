# max-python: 3.10
"""`return value` inside a `try` whose `finally` body is an `if`: the value waits on the stack
through the finally copy, and the compiler gives each way out of that `if` its own copy of the
line-less RETURN_VALUE, the one the test jumps to alone after the one the body falls into
(3.10; issue 12). 3.11+ make the same copies, but their finally-copy reading (handlers.py)
does not take them back yet: see bench/baselines/3.11.json (imghdr.py::what)."""


def what(file, tests):
    f = None
    try:
        for tf in tests:
            res = tf(file, f)
            if res:
                return res
    finally:
        if f:
            f.close()
    return None


def two_tests(self, file, offset):
    total = 0
    try:
        while True:
            data = self.read()
            if not data:
                break
            total += 1
        return total
    finally:
        if total > 0 and hasattr(file, 'seek'):
            file.seek(offset + total)
