"""Swapping items whose index is computed in the target (found on 3.14/3.13,
_collections_abc.MutableSequence.reverse): ``a[i], a[n - i - 1] = a[n - i - 1], a[i]`` is two
values, SWAP 2, then the stores; an operation inside a target made the walker read the swap
as generated code and spill every value to a temporary."""


def reverse(self):
    n = len(self)
    for i in range(n // 2):
        self[i], self[n - i - 1] = self[n - i - 1], self[i]


def swap_last(a, n, i):
    a[i], a[n - 1] = a[n - 1], a[i]


def swap_attr_and_item(obj, a, k):
    obj.x, a[k + 1] = a[k + 1], obj.x
