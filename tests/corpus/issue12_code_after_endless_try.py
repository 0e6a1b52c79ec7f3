"""The code after ``try: while True: ... / except E: pass`` (3.12+): only the clause reaches
it, so it is laid out after the clause's POP_EXCEPT; the try body ends with the endless
loop's jump back, not a return or raise, and the code read as the clause's own (``except E:
return logs``: torch._inductor.compile_fx_ext _CapturedLogs.finish)."""


def drain(q, E):
    logs = []
    try:
        while True:
            logs.append(q())
    except E:
        pass
    return logs


def drain_then_more(q, E, f):
    logs = []
    try:
        while True:
            q()
    except E:
        pass
    f(logs)
    return logs
