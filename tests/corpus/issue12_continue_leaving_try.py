# max-python: 3.11
# (3.12+ read some of these shapes wrong in other ways: not this fix's)
"""3.8/3.9: a ``continue`` that leaves a try body or an except clause (pstats.Stats.generic,
importlib._bootstrap._handle_fromlist): it pops the block before jumping to the loop head,
and 3.8/3.9 leave the try body's own exit dead after it, so it was written; it was read as
the try body's exit threaded to the loop head, or as an if body's jump over an else."""


def last_in_try_body(args, p):
    for term in args:
        try:
            p(term)
            continue
        except ValueError:
            pass
        p(0)
    return 0


def in_if_in_try_body(args, p):
    for term in args:
        try:
            if term:
                p(1)
                continue
            p(term)
            continue
        except ValueError:
            pass
        p(0)
    return 0


def in_if_in_named_clause(fromlist, m, g, E):
    for x in fromlist:
        if x:
            try:
                g(x)
            except E as exc:
                if exc.name:
                    continue
                raise
    return m


def generic(self, args):
    processed = []
    for term in args:
        try:
            processed.append(int(term))
            continue
        except ValueError:
            pass
        try:
            frac = float(term)
            if frac > 1 or frac < 0:
                print("Fraction argument must be in [0, 1]", file=self.stream)
                continue
            processed.append(frac)
            continue
        except ValueError:
            pass
        processed.append(term)
    return processed


def clause_exit_to_loop_head(g):
    # (the clause's own exit, threaded to the loop head, is no continue:
    # multiprocessing.synchronize.SemLock.__init__)
    for i in range(100):
        try:
            sl = g()
        except FileExistsError:
            pass
        else:
            break
    return sl


def named_clause_exits_to_loop_head(self, errno):
    # (3.9: the named clause's own exit comes before its name's cleanup; threaded to the
    # loop head like the first clause's, neither is a continue: xmlrpc.client.Transport.request)
    for i in (0, 1):
        try:
            return self.single_request()
        except ConnectionError:
            if i:
                raise
        except OSError as e:
            if i or e.errno not in (errno.ECONNRESET, errno.EPIPE):
                raise
