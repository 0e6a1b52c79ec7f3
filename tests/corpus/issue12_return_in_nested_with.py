# min-python: 3.11
"""A constant return at the end of nested with bodies (filecmp._do_cmp): from 3.12 the
exit calls of both withs are copied before the constant is loaded, which read the same as a
return after the with statements; the handlers' suppressed exits (going on to the implicit
return None) tell them apart. 3.14 also leaves a loop's conditional back edge that ends the
with body out of the exception table (_do_cmp failed with "stack underflow" there). 3.10 reads
nested_break_then_return and return_after_inner wrong (not exact, marked): not fixed here."""


def compare(f1, f2, bufsize):
    with open(f1, "rb") as fp1, open(f2, "rb") as fp2:
        while True:
            b1 = fp1.read(bufsize)
            b2 = fp2.read(bufsize)
            if b1 != b2:
                return False
            if not b1:
                return True


def nested_break_then_return(f1, f2, bufsize):
    with open(f1) as fp1:
        with open(f2) as fp2:
            while True:
                b1 = fp1.read(bufsize)
                if not b1:
                    break
            return True


def return_after_both(f1, f2):
    with open(f1) as fp1:
        with open(f2) as fp2:
            fp1.read()
    return True


def return_after_inner(f1, f2):
    with open(f1) as fp1:
        with open(f2) as fp2:
            fp2.read()
        return True
