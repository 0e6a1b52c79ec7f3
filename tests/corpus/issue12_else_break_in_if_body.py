# min-python: 3.11
"""``while 1: ... if test: <statements> else: break`` inside an ``if`` body with an ``else``
(found on 3.14, _markupbase's _parse_doctype_entity; see issue12_else_break_ending_loop.py):
the break falls into a copy of the code after the if. 3.8-3.10 read the if's end wrong here
(not this shape's template; left alone), so the file runs from 3.11 on."""


def inside_if(rawdata, i):
    if rawdata[i:i + 1] == "%":
        j = i + 1
        while 1:
            c = rawdata[j:j + 1]
            if c.isspace():
                j = j + 1
            else:
                break
    else:
        j = i
    return j
