"""``if not a < b < c: continue`` (random.Random.gammavariate): 3.8/3.9 thread the final
test's jump over the chain's cleanup through the ``continue`` after it, to the loop head,
which normalization sends to the loop's back edge; the if body read as starting there,
past the code after the if ("backward conditional jump outside a loop")."""


def while_loop(random, g):
    while 1:
        u1 = random()
        if not 1e-7 < u1 < .9999999:
            continue
        g(u1)


def for_loop(values, g):
    for u1 in values:
        if not 1e-7 < u1 < .9999999:
            continue
        g(u1)
