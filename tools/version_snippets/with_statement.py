# Shows: with (SETUP_WITH on 3.8-3.10; LOAD_SPECIAL on 3.14+).
def f(a, c):
    with a as b:
        c(b)
