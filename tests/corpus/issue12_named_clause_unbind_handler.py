# min-python: 3.11
"""``except E as name: pass`` after a try body that returns (found on 3.12-3.14, codeop's
_maybe_compile, inspect's getblock): the clause's handler that unbinds the name and
re-raises protects no code, so it is dead code after the clause's jump to the code after
the try, and the decompiler read it as a ``raise`` in the clause (and the try body's
``return`` as an else)."""


def maybe_compile(compiler, source):
    try:
        compiler(source + "\n")
        return None
    except IncompleteInputError as e:
        return None
    except SyntaxError as e:
        pass
    return compiler(source)


def tokens(blockfinder, token_info):
    try:
        for token in token_info:
            blockfinder.tokeneater(*token)
    except (EndOfBlock, IndentationError) as e:
        pass
    return blockfinder.last
