# min-python: 3.11
"""``while 1: ... if test: <statements> else: break`` ending an if body with an else, and
more than a ``return`` after the if (found on 3.14, _markupbase's _parse_doctype_entity; see
issue12_else_break_in_if_body.py): the break is its own jump, laid out after the loop's
back edge, where the decompiler wrote ``if not test: break`` before the statements."""


def scan(self, rawdata, i, declstartpos):
    if rawdata[i:i + 1] == "%":
        j = i + 1
        while 1:
            c = rawdata[j:j + 1]
            if not c:
                return -1
            if c.isspace():
                j = j + 1
            else:
                break
    else:
        j = i
    name, j = self._scan_name(j, declstartpos)
    return j
