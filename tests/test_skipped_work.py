"""Work the walk skips where its precondition is absent (the compiler of the running version
lays out no such code): each skip answers as the work would, compared on real code objects
with the work done."""

from dynalens.decompiler import branches, handlers
from real_code import code_objects, decompiled


def _clauses(a, b):
    for x in a:
        try:
            b.append(x)
        except KeyError:
            pass
    try:
        return a[b]
    except (IndexError, TypeError) as error:
        b.log(error)
    except ValueError:
        for y in b:
            a.f(y)
    raise RuntimeError(a)


def _codes():
    import argparse
    import shutil
    import subprocess
    return code_objects((argparse, shutil, subprocess), [_clauses.__code__], functions_only=True)


def _outputs(codes):
    return [decompiled(code) for code in codes]


def test_clauses_walked_for_their_exit_copies_only_where_they_may_have_them(monkeypatch):
    # _exit_copied_into_clauses walks no clause before 3.12 (no clause ends with a copy of the
    # exit block) nor past the first clause without one: the walks it once made of them (the
    # answer was None, and do_try read the clauses again) changed nothing that is read
    codes = _codes()
    texts = _outputs(codes)
    asked = []
    fast = handlers._exit_copied_into_clauses

    def walking_every_clause(walker, h, cleanup, stack, ctx, exit_start):
        asked.append(h)
        handlers._except_clauses(walker, h, cleanup, stack, ctx, exit_start)
        return fast(walker, h, cleanup, stack, ctx, exit_start)

    monkeypatch.setattr(handlers, "_exit_copied_into_clauses", walking_every_clause)
    assert _outputs(codes) == texts
    assert len(asked) >= 5


def test_loop_and_if_shapes_of_later_versions_skipped_give_the_scan(monkeypatch):
    # _exits_inside (no detached exit copy: no jump to a label past the code) and
    # _breaks_copy_clause_exit (before 3.13's cold clauses no break copies a clause exit)
    # answer as the scans of the range would
    codes = _codes()
    texts = _outputs(codes)
    calls = []

    def exits_inside(walker, start, stop):
        found = any(walker.instrs[k].target is not None and walker.instrs[k].target > walker.n
                    and walker.instrs[k].op != "FOR_ITER" for k in range(start, stop))
        calls.append("exits")
        assert real_exits(walker, start, stop) == found
        return found

    def breaks_copy(walker, head, exit_):
        end = walker.range_end
        found = exit_ + 2 <= end and (
            walker.instrs[end - 2].op == "POP_EXCEPT" and walker.instrs[end - 1].op == "JUMP"
            or walker.instrs[end - 1].op in branches._NO_FALL_THROUGH) and \
            any(branches.clause_exit_break(walker, k) for k in range(head + 2, exit_))
        calls.append("breaks")
        assert real_breaks(walker, head, exit_) == bool(found)
        return bool(found)

    real_exits, real_breaks = branches._exits_inside, branches._breaks_copy_clause_exit
    monkeypatch.setattr(branches, "_exits_inside", exits_inside)
    monkeypatch.setattr(branches, "_breaks_copy_clause_exit", breaks_copy)
    assert _outputs(codes) == texts
    assert calls.count("exits") >= 20 and calls.count("breaks") >= 5, \
        (calls.count("exits"), calls.count("breaks"))
