"""``return None if c else x`` in the ``else`` that ends a function (found on 3.8/3.9,
_pydecimal's _decimal_lshift_exact): the constant ``None`` shares the test's line, so it looked
like the compiler's implicit return, which was dropped; before 3.10 that one is only ever the
code's last two instructions, kept dead after the if/else."""


def lshift(n, e):
    if n == 0:
        return 0
    elif e >= 0:
        return n * 10 ** e
    else:
        val_n = len(str(n))
        return None if val_n < -e else n // 10 ** (-e)


def plain(a, e):
    if a:
        return 0
    else:
        return None if a < -e else a // 10
