"""A ``return`` inside a try nested in a ``try``/``finally`` (found on 3.10,
ctypes.macholib.dyld.framework_find and concurrent.futures' _result_or_cancel): the outer
finally body is copied between the inner statement's end and the return, which read as
code after the inner try (an inlined else or tail), with the returned value left behind."""


def framework_find(fn, dyld_find):
    try:
        return dyld_find(fn)
    except ValueError:
        raise error
    finally:
        error = None


def result_or_cancel(fut, timeout=None):
    try:
        try:
            return fut.result(timeout)
        finally:
            fut.cancel()
    finally:
        del fut
