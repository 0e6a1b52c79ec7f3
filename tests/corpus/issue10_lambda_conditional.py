"""A lambda whose body is a conditional expression (found by CPython's test_statistics on
3.13: statistics' module-level `_kernel_invcdfs` dict holds one, and the whole module failed).
3.12+ copy the return into both branches, so the body reads as `if c: return a; return b`."""

from math import sqrt

KERNELS = {
    'rectangular': lambda p: 2 * p - 1,
    'triangular': lambda p: sqrt(2 * p) - 1 if p < 1 / 2 else 1 - sqrt(2 - 2 * p),
}


def nested_conditional_lambda():
    return lambda p, q: p if q else (q if p else 3)


def conditional_lambda_with_default(x):
    return lambda p=x: -p if p < 0 else p
