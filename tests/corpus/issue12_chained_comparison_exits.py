"""Chained comparisons whose surroundings 3.12+ lay out differently: a value chain followed by
a small exit block (copied after the final comparison and after the cleanup), and a tested
chain whose if body does not fall through (no jump leads over the cleanup)."""


def returned_chain(c, low, high):
    return low <= ord(c) <= high


def returned_chain_plus(c, low, high):
    return (low <= ord(c) <= high) + 1


def tested_chain_returns(code):
    c = ord(code)
    if 0xFDD0 <= c < 0xFDF0:
        return False
    return (c & 0xFFFF) not in (0xFFFE, 0xFFFF)


def tested_chain_in_loop(self, done, steps):
    for step in steps:
        if self.limit is not None and 0 <= self.limit <= done:
            break
        done += step
