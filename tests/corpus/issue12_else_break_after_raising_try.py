"""3.9: ``if c: try: ... except E: raise ... else: break`` ending a while body
(configparser.BasicInterpolation.before_get): the if body never reaches its end, so the
jump over the else (threaded to the loop head) is dead, and the test's jump to the
``break`` was threaded past it; the dead break had a dead jump before it, not a live
exit, and was not sent back to, so the if read as ``if not c: break``."""


def before_get(depth, value, vars, X):
    while depth:
        depth -= 1
        if value:
            try:
                value = value % vars
            except KeyError as e:
                raise X() from None
        else:
            break
    return value
