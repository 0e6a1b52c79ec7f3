"""Choice points (decompiler/choices.py): where the bytecode allows two readings, a verify miss
retries the other; exact code is rendered once, and the retries are bounded."""

import sys
import textwrap

import pytest

from dynalens.decompiler import choices, render
from dynalens.decompiler.verify import verify


def _code(source, name):
    module = compile(textwrap.dedent(source), "<choices>", "exec")
    return next(c for c in module.co_consts if getattr(c, "co_name", None) == name)


@pytest.fixture
def renders(monkeypatch):
    """How many times decompile_code rendered (each attempt renders once)."""
    count = [0]
    original = render._render

    def counted(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(render, "_render", counted)
    return count


def _without_retries(monkeypatch, code):
    monkeypatch.setattr(choices, "MOST", 0)
    text = render.decompile_code(code)
    monkeypatch.undo()
    return text


# else-after-exit (branches.if_statement): the elif after `if ...: raise` ends the loop body
# with `break`; 3.11-3.13 read its branches as code after the if by default
ELSE_AFTER_EXIT = """
def consume(action, explicit_arg, n):
    while True:
        if action is None:
            return n
        if explicit_arg is not None:
            if n == 0 and explicit_arg != '':
                if n in m:
                    action = m[n]
                else:
                    raise E(action)
            elif n == 1:
                stop = n + 1
                break
            else:
                raise E(action)
        else:
            stop = n
            break
    return stop
"""

# else-for-dead-return (legacy_structure, 3.8/3.9): the inner if's tail is no else
ELSE_FOR_DEAD_RETURN = """
def warning(root):
    if cocoa():
        level = root.call('info')
        if level not in ('8.5.7', '8.5.9'):
            return False
        return 'warning {0}'.format(level)
    else:
        return False
"""


@pytest.mark.skipif(not (3, 11) <= sys.version_info[:2] <= (3, 13),
                    reason="the default reading is the wrong one on 3.11-3.13")
def test_else_after_exit_retried(monkeypatch):
    code = _code(ELSE_AFTER_EXIT, "consume")
    before = _without_retries(monkeypatch, code)
    assert not verify(code, before)
    assert "# dynalens: not exact" in before
    after = render.decompile_code(code)
    assert verify(code, after), after
    assert "# dynalens" not in after


@pytest.mark.skipif(sys.version_info[:2] not in ((3, 8), (3, 9)),
                    reason="dead code is kept on 3.8/3.9 only")
def test_else_for_dead_return_retried(monkeypatch):
    code = _code(ELSE_FOR_DEAD_RETURN, "warning")
    before = _without_retries(monkeypatch, code)
    assert not verify(code, before)
    after = render.decompile_code(code)
    assert verify(code, after), after


def test_exact_code_rendered_once(renders):
    code = _code("""
        def f(a, b):
            if a:
                return b
            return a
        """, "f")
    assert verify(code, render.decompile_code(code))
    assert renders[0] == 1


def test_retries_are_bounded(monkeypatch, renders):
    # a shape no alternative fixes (3.10 reads this loop differently; elsewhere the elif chain
    # after `if nl == -1: start = 2 else: break` is not exact): every point is tried at most
    # once per answer, within the budget, and the output is the default reading's, marked
    code = _code("""
        def readall(self):
            while True:
                if self.a:
                    pos = self.b
                    if pos >= 0:
                        break
                    else:
                        start = 1
                elif self.c:
                    if cr == -1:
                        if nl == -1:
                            start = 2
                        else:
                            break
                    elif nl == -1:
                        break
                    else:
                        break
                else:
                    pos = 3
                if pos:
                    break
            return pos
        """, "readall")
    monkeypatch.setattr(choices, "BUDGET", 2)
    text = render.decompile_code(code)
    assert not verify(code, text)
    assert renders[0] <= 1 + 2
    assert text == _without_retries(monkeypatch, code)


def test_decisions_record_points_and_answer():
    decisions = choices.Decisions({(id(test_decisions_record_points_and_answer),
                                    choices.ELSE_AFTER_EXIT, 8): 1})

    class Walker(object):
        code = test_decisions_record_points_and_answer
    Walker.decisions = decisions
    assert choices.choose(Walker, choices.ELSE_AFTER_EXIT, 4) == 0
    assert choices.choose(Walker, choices.ELSE_AFTER_EXIT, 8) == 1
    assert choices.choose(Walker, choices.ELSE_AFTER_EXIT, 4) == 0
    assert decisions.asked == {id(Walker.code): [(choices.ELSE_AFTER_EXIT, 4),
                                                 (choices.ELSE_AFTER_EXIT, 8)]}
    Walker.decisions = None  # a walker made outside decompile(): the defaults
    assert choices.choose(Walker, choices.ELSE_AFTER_EXIT, 8) == 0


def test_retry_keeps_only_strictly_better_attempts():
    # attempts scripted by their answers: flipping point 2 fixes code 1 but breaks code 3,
    # flipping point 4 fixes code 1 alone
    def attempt(decisions):
        made = choices.Decisions(decisions.answers)
        made.asked = {1: [("else-after-exit", 2), ("else-after-exit", 4)]}
        failed = {1, 2}
        if made.answers.get((1, "else-after-exit", 2)):
            failed = {2, 3}
        if made.answers.get((1, "else-after-exit", 4)):
            failed = {2}
        return choices.Attempt(made, frozenset(failed))

    first = attempt(choices.Decisions())
    best = choices.retry(attempt, first)
    assert best.failed == frozenset([2])
    assert best.decisions.answers == {(1, "else-after-exit", 4): 1}


@pytest.mark.skipif(not (3, 11) <= sys.version_info[:2] <= (3, 13),
                    reason="the default reading is the wrong one on 3.11-3.13")
def test_nested_code_searched_alone(monkeypatch, renders):
    # a module whose function needs the other reading: the function is searched on its own,
    # and the whole is rendered once more with the answers found (not once per flip)
    module = compile("import os\n" + ELSE_AFTER_EXIT + "\nx = consume(1, 2, 3)\n", "<m>", "exec")
    most = choices.MOST
    monkeypatch.setattr(choices, "MOST", 0)
    before = render.decompile_code(module)
    assert not verify(module, before)
    monkeypatch.setattr(choices, "MOST", most)
    renders[0] = 0
    after = render.decompile_code(module)
    assert verify(module, after), after
    searched_alone = renders[0] - 2  # (the first rendering of the whole, and the last)
    assert 1 <= searched_alone <= choices.BUDGET + 1


def test_flips_past_the_first_difference_are_skipped():
    # code 1's first difference reaches offset 6: flipping the if at 10 cannot remove it
    # (else-after-exit changes only the code at and after its offset) and is not rendered;
    # the dead-return point at the end is tried (what it changes lies before its offset)
    tried = []

    def attempt(decisions):
        tried.append(dict(decisions.answers))
        made = choices.Decisions(decisions.answers)
        made.asked = {1: [(choices.ELSE_AFTER_EXIT, 4), (choices.ELSE_AFTER_EXIT, 10),
                          (choices.ELSE_FOR_DEAD_RETURN, 20)]}
        return choices.Attempt(made, frozenset([1]), reach={1: 6})

    choices.retry(attempt, attempt(choices.Decisions()))
    assert tried[1:] == [{(1, choices.ELSE_AFTER_EXIT, 4): 1},
                         {(1, choices.ELSE_FOR_DEAD_RETURN, 20): 1}]


def _scripted_retry(asked, reach=None, at=None, fixed_by=None):
    """The answers choices.retry tries, in order, for one code object (id 1) that fails
    until the flip ``fixed_by`` (a (kind, offset) pair) is made."""
    tried = []

    def attempt(decisions):
        tried.append(dict(decisions.answers))
        made = choices.Decisions(decisions.answers)
        made.asked = {1: list(asked)}
        fixed = fixed_by is not None and made.answers.get((1,) + fixed_by)
        return choices.Attempt(made, frozenset() if fixed else frozenset([1]),
                               reach={1: reach} if reach is not None else None,
                               at={1: at} if at is not None else None)

    best = choices.retry(attempt, attempt(choices.Decisions()))
    return [next(iter(answers))[1:] for answers in tried[1:]], best


def test_points_nearest_the_first_difference_first():
    # the first difference is at offset 12 and reaches 40: else-after-exit points at or before
    # 12 nearest first, then those after it from the furthest back, within the kind's budget
    # (3); the block order, most often the fix, before them all
    asked = [(choices.ELSE_AFTER_EXIT, 4), (choices.ELSE_AFTER_EXIT, 10),
             (choices.ELSE_AFTER_EXIT, 16), (choices.ELSE_AFTER_EXIT, 30),
             (choices.SOURCE_BLOCK_ORDER, 0), (choices.ELSE_AFTER_EXIT, 50)]
    order, best = _scripted_retry(asked, reach=40, at=12)
    assert choices.KIND_BUDGET[choices.ELSE_AFTER_EXIT] == 3
    assert order == [(choices.SOURCE_BLOCK_ORDER, 0), (choices.ELSE_AFTER_EXIT, 10),
                     (choices.ELSE_AFTER_EXIT, 4), (choices.ELSE_AFTER_EXIT, 30)]
    assert best.failed == frozenset([1])


def test_retry_stops_at_the_flip_that_fixes():
    asked = [(choices.ELSE_AFTER_EXIT, 4), (choices.ELSE_AFTER_EXIT, 10),
             (choices.ELSE_AFTER_EXIT, 16)]
    order, best = _scripted_retry(asked, reach=20, at=18,
                                  fixed_by=(choices.ELSE_AFTER_EXIT, 10))
    assert order == [(choices.ELSE_AFTER_EXIT, 16), (choices.ELSE_AFTER_EXIT, 10)]
    assert best.failed == frozenset()
    assert best.decisions.answers == {(1, choices.ELSE_AFTER_EXIT, 10): 1}


def test_difference_says_where_it_starts():
    # verify.Difference.at: the original's offset of the first differing instruction
    from dynalens.decompiler.verify import check_tree
    code = _code("""
        def f(a):
            x = a + 1
            return x * 2
        """, "f")
    differences, _ = check_tree(code, "def f(a):\n    x = a + 1\n    return x * 3\n")
    assert len(differences) == 1
    at = differences[0].at
    ins = [i for i in __import__("dis").get_instructions(code) if i.offset == at]
    assert ins and ins[0].opname == "LOAD_CONST" and ins[0].argval == 2
    assert differences[0].reach == at


def test_a_retry_verifies_a_text_once_and_decides_as_when_verifying_it_again(monkeypatch):
    # an attempt whose rendering is the text of an earlier one takes that one's verification
    # (render._best_attempt); with every attempt verified, the output is the same
    from asyncio import proactor_events
    code = proactor_events._ProactorReadPipeTransport._loop_reading.__code__
    verified = []
    real = render.check

    def check(code_, text, session, *module):
        verified.append(text)
        return real(code_, text, session, *module)

    monkeypatch.setattr(render, "check", check)
    once = render.decompile_code(code)
    assert len(verified) == len(set(verified))
    counted = len(verified)
    del verified[:]
    monkeypatch.setattr(render, "_verification_key", lambda text, session: object())
    monkeypatch.setattr(render, "verdict_key", lambda module: object())  # (test below)
    assert render.decompile_code(code) == once
    if sys.version_info[:2] == (3, 11):  # (where this function's retry renders a text twice)
        assert len(verified) > counted


def test_a_retry_verifies_a_compiled_shape_once_and_decides_as_when_verifying_it_again(
        monkeypatch):
    # an attempt whose text compiles to the code objects of an earlier attempt but for line
    # numbers takes that one's verdict (render._best_attempt, verify.verdict_key); with every
    # attempt verified, the output is the same, and each reused verdict is the one verifying
    # that attempt finds
    import textwrap as module
    code = module.dedent.__code__
    checked = []
    real = render.check

    def check(code_, text, session, *compiled):
        checked.append(text)
        return real(code_, text, session, *compiled)

    monkeypatch.setattr(render, "check", check)
    reused = []
    attempt_verdict = render.choices.Attempt

    def recorded(decisions, failed, result=None, **kwargs):
        if result is not None and result[2] not in checked:
            # a verdict taken from an earlier attempt: verify this attempt's text itself
            session, _, text, _, _ = result
            again = real(code, text, session)[0]
            reused.append(((failed, kwargs.get("reach"), kwargs.get("at")),
                           (frozenset(id(d.code) for d in again),
                            dict((id(d.code), d.reach) for d in again if d.reach is not None),
                            dict((id(d.code), d.at) for d in again if d.at is not None))))
        return attempt_verdict(decisions, failed, result, **kwargs)

    monkeypatch.setattr(render.choices, "Attempt", recorded)
    once = render.decompile_code(code)
    counted = len(checked)
    monkeypatch.setattr(render.choices, "Attempt", attempt_verdict)
    del checked[:]
    monkeypatch.setattr(render, "verdict_key", lambda module: object())
    assert render.decompile_code(code) == once
    assert all(verdict == again for verdict, again in reused)
    if sys.version_info[:2] == (3, 11):  # (where this function's retry renders such texts)
        assert reused and len(checked) > counted
