# min-python: 3.10
# max-python: 3.11
"""An elif chain ending the body of a while loop tested at the bottom, whose branches end in
break while inner branches fall off to the test (python-dateutil's _timelex.get_token: its
suite lost 500 of 2,031 tests on the decompiled source, the inner branches falling into the
next test). 3.12+ lay the loop out otherwise, not rebuilt yet there (marked), hence the bound."""


def elif_chain_in_tested_while(self):
    token = None
    state = None
    while not self.eof:
        c = self.read(1)
        if not c:
            self.eof = True
            break
        elif not state:
            token = c
            if self.isword(c):
                state = 'a'
            elif self.isspace(c):
                token = ' '
                break
            else:
                break
        elif state == 'a':
            if self.isword(c):
                token += c
            else:
                self.push(c)
                break
    return token
