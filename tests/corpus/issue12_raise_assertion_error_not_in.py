"""``if a not in b: raise AssertionError(msg)`` on 3.8, where no LOAD_ASSERTION_ERROR tells
it from an ``assert`` (distutils.command.upload.upload_file): it read as ``assert not a not
in b, msg``, which the compiler folds to ``a in b``; no assert compiles back to it, so the
if stays."""


def check_schema(schema, repository):
    if schema not in ('http', 'https'):
        raise AssertionError("unsupported schema " + schema)
    if repository is not None:
        raise AssertionError
    return schema


def asserts(x, y):
    assert x in y, 'm'
    assert x not in y, 'm'
    assert x is not y
    return 1
