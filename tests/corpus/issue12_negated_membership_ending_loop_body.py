"""``if not (a in b or c in b): <rest of the loop body>`` (transformers' continuous batching,
``DistributedHelper.are_kv_heads_tp_ed``). 3.12+ thread the tests' jumps to the loop head,
so each test reads as a jump back; written back as ``if not a in b:`` around the rest, the
compiler folds ``not (a in b)`` into ``a not in b``, other instructions. ``if a in b:
continue`` is the same bytecode."""


def membership_or_before_break(self, keys):
    kv_is_tp = True
    for key in keys:
        if not (key in self.tp_plan or "model." + key in self.tp_plan):
            kv_is_tp = False
            break
    return kv_is_tp


def identity_or(items, marker, other):
    found = []
    for item in items:
        if not (item is marker or item is other):
            found.append(item)
    return found


def single_membership(keys, plan):
    count = 0
    for key in keys:
        if not (key in plan):
            count += 1
    return count
