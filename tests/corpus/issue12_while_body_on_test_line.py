"""A ``while`` whose body shares the test's line (found on 3.10, cmd.parseline; also 3.11 and
3.12): the bottom copy of the test starts no line of its own, so the two copies differed in
their lines and the loop was not found; and a statement before the loop ending like the body
(``STORE_FAST i``) matched as part of the test."""


def parseline(self, line):
    if not line:
        return None, None, line
    elif line[0] == '?':
        line = 'help ' + line[1:]
    i, n = 0, len(line)
    while i < n and line[i] in self.identchars: i = i+1
    return line[:i]


def skip_spaces(s):
    i = 0
    while i < len(s) and s[i] == ' ': i += 1
    return s[i:]
