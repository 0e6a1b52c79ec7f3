"""``return "" if (a or not b) else (x if c else y)`` (3.8/3.9, 3.12/3.13): the first
branch's return carries the mark of an expression's branch, the inner conditional expression's
branches (no constants) carry none, so the inner one stayed two statements and the outer one
could not fold (torch.utils.benchmark TaskSpec.setup_str)."""


def setup_str(self, t):
    return "" if (self.setup == "pass" or not self.setup) else f"s:{t()}" if "\n" in self.setup else f"s: {self.setup}"


def chain_of_three(a, b, c, x, y, z):
    return 0 if a else x() if b else y() if c else z()
