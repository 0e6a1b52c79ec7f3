"""A ``while`` tested by a chained comparison (found on 3.10, _pydecimal's _power_exact;
also 3.11-3.13): each copy of the test jumps to a cleanup of its own (POP_TOP), the top copy
jumps over its cleanup into the body and the loop's exit passes over the bottom copy's
(3.12+: the code after the loop is copied before and after it)."""


def halve(m, n):
    while m % 2 == n % 2 == 0:
        m //= 2
    return m


def reduce(m, n, x):
    if x:
        return None
    while m % 2 == n % 2 == 0:
        m //= 2
        n //= 2
    while m % 5 == n % 5 == 0:
        m //= 5
    return m, n


def counted(a, b, c):
    k = 0
    while a < b <= c:
        a += 1
        k += 1
    print(k)
