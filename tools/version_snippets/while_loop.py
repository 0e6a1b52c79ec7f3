# Shows: while (3.12/3.13: the loop test is duplicated at the bottom; jump targets differ).
def f(a):
    while a:
        a = a.next
    return a
