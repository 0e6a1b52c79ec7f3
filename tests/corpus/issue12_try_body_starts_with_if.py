"""``if a: try: if b: ...``: 3.13 starts the try body with the inner test (no NOP for the
``try`` line), so it follows the outer test directly; the tests of one condition all lie in
one exception region, so it is not ``if a and b``."""


def symlink_or_copy(self, src, dst, force_copy):
    if not force_copy:
        try:
            if not os.path.islink(dst):
                os.symlink(src, dst)
        except Exception:
            force_copy = True
    if force_copy:
        copyfile(src, dst)
