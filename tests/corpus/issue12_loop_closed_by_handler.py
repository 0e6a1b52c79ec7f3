# min-python: 3.10
"""A `while True:` whose body is a try with `else: break`: 3.12+ go back to the head only from
the except clause, laid out after everything, so that cold jump is the loop's back edge.
(3.8/3.9 lay the try/else out differently: not read yet, issue 12.)"""


def retried(source):
    attempts = 0
    while True:
        try:
            items = list(source)
        except RuntimeError:
            attempts += 1
            if attempts >= 1000:
                raise
        else:
            break
    return items
