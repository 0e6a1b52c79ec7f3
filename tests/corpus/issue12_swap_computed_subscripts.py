"""``a[i], a[n - i - 1] = a[n - i - 1], a[i]``: the compiler turns the tuple and its
unpacking into a SWAP, and the second target's subscript is computed (a binary operation)
after it; the targets are still only loads and operations on them, no use of the values."""


def reverse(self):
    n = len(self)
    for i in range(n // 2):
        self[i], self[n - i - 1] = self[n - i - 1], self[i]


def rotate(grid, k, m):
    grid.rows[k], grid.rows[k * 2 + m] = grid.rows[k * 2 + m], grid.rows[k]
    x, grid.cols[-k] = grid.cols[-k], x
