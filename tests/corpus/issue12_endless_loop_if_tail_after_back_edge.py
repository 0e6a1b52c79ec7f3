# min-python: 3.8
"""An endless ``while`` whose body ends with ``if c: <statements that leave>``, left by a
``break`` elsewhere: 3.14 lays the if's body out after the loop's last back edge (the test
jumps back when false), before the code the break goes to, so it read as ``if c: break``
with the statements lost (json.decoder.JSONObject)."""


def object_pairs(s, end):
    while True:
        end = scan(s, end)
        if end == 1:
            break
        elif end != 2:
            raise TypeError(end)
        nextchar = s[end]
        if nextchar != '"':
            if nextchar == '}':
                raise ValueError(end)
            raise KeyError(end)
    if s:
        return 5
    return end


def returning_tail(items, i):
    while True:
        i = step(items, i)
        if i is None:
            break
        if items[i]:
            log(i)
            return i
    return -1
