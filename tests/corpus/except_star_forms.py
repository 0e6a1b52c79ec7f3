# min-python: 3.11
"""except*: several clauses, names, else, finally, raise inside, loops, module level."""
import asyncio

log = []
try:
    log.append(int('x'))
except* ValueError as group:
    log.append(group.exceptions)
except* TypeError:
    log.append('type')


def with_else_finally(work, log):
    try:
        work()
    except* (OSError, ValueError) as eg:
        log.append(len(eg.exceptions))
    else:
        log.append('ok')
    finally:
        log.append('done')
    return log


def reraise(work):
    try:
        work()
    except* KeyError as eg:
        raise RuntimeError('keys') from eg
    except* Exception:
        raise
    print('after')


def in_loop(jobs, log):
    for job in jobs:
        try:
            job()
        except* ValueError:
            log.append(job)
        if not log:
            break
    while jobs:
        try:
            jobs.pop()()
        except* asyncio.CancelledError as eg:
            log.append(eg)
        else:
            log.append('clean')


def nested(a, b):
    try:
        try:
            a()
        except* ValueError:
            b()
    except* TypeError as outer:
        return_value = outer
        print(return_value)


def handler_body(work, log):
    try:
        work()
    except* ValueError as eg:
        for exc in eg.exceptions:
            if exc.args:
                log.append(exc.args[0])
            else:
                log.append(None)
        with open('x') as fh:
            fh.read()
    return log
