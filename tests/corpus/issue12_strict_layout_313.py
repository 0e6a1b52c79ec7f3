# max-python: 3.13
"""Shapes of issue12_strict_layout.py that the decompiler does not read exactly on 3.14+ yet
(a with of two managers: stack underflow at PUSH_EXC_INFO; a loop ending an if body: a jump
target off by one), before and after the strict-layout passes alike."""


def with_two_managers(f1, f2, bufsize):
    with open(f1, 'rb') as fp1, open(f2, 'rb') as fp2:
        while True:
            b1 = fp1.read(bufsize)
            b2 = fp2.read(bufsize)
            if b1 != b2:
                return False
            if not b1:
                return True


def break_out_of_loop_ending_if_body(self):
    line = self.getline()
    if line[3:4] == '-':
        code = line[:3]
        while 1:
            nextline = self.getline()
            line = line + ('\n' + nextline)
            if nextline[:3] == code and nextline[3:4] != '-':
                break
    return line
