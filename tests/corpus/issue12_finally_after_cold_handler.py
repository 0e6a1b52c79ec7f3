"""try/finally shapes of torch's wrappers that 3.12+ lay out with cold handlers in between.

``try: return fn() / finally: if c: g(c)`` after a try/except: the except handler lies
between the warm code and the finally handler, so the normal exit's copy (which returns on
each branch) did not seem to end where the handler starts, and the return value went through
temporaries (torch.testing set_default_dtype_if_supported, convert_frame
preserve_global_state, with_nccl_blocking_wait). And ``try: r = f() / except E: raise /
finally: g()`` then ``return r``: no clause comes back, so nothing marked where the body
ends, and the return was read as the try's else (torch.distributed.elastic.metrics prof /
profile)."""


def return_in_finally_after_try(fn, c, d, x, g):
    try:
        x()
    except TypeError:
        d = False
    try:
        return fn()
    finally:
        if c is not None:
            g(c)


def return_after_raising_clauses(func, g):
    try:
        result = func()
    except Exception:
        g()
        raise
    finally:
        g()
    return result


def code_after_raising_clauses(func, g, h):
    try:
        start = h()
        result = func(start)
        g(1)
    except Exception:
        g(2)
        raise
    finally:
        g(start)
    h(result)
    return result


def early_return_in_loop(conn, log, close):
    # (the copy before the loop's `return` is not the normal exit's: it is inside a loop
    # of the body; torch.distributed.checkpoint _checkpointing_subprocess)
    try:
        first = True
        while True:
            obj = conn.recv()
            if obj is None:
                log("stop")
                return
            try:
                conn.send(obj)
                first = False
            except BaseException as e:
                conn.send(e)
    finally:
        close()


def copy_ending_one_branch(self, raised, sys):
    # (the copy after `self.jump(entry)` ends one branch, protected code follows it: not
    # the normal exit's; torch._dynamo InstructionTranslatorBase.exception_handler, 3.12)
    try:
        if sys.version_info >= (3, 11):
            entry = self.entry
            if entry:
                while len(self.stack) > entry.depth:
                    self.pop()
                self.jump(entry)
            else:
                self.stack.clear()
                raise raised
        else:
            self.stack.clear()
            raise raised
    finally:
        del raised
