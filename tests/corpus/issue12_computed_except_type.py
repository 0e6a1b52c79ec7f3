# min-python: 3.11
"""An except clause whose type is a conditional expression (found on 3.15, _py_warnings'
_setoption: ``except re.PatternError if message or module else ():``): the type's code has
jumps before CHECK_EXC_MATCH, so the handler read as a finally and raised."""


def set_option(message, module):
    try:
        filterwarnings(message, module)
    except PatternError if message or module else ():
        if message:
            raise OptionError(message) from None
        raise


def lookup(get, strict):
    try:
        return get()
    except (KeyError, IndexError) if strict else KeyError:
        return None
