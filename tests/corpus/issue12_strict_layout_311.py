# min-python: 3.11
"""A written `continue` in the else of an if inside an elif branch: it has a line of its own,
so it stays a continue (loop_exits.py); 3.8-3.10 do not read this loop exactly yet."""


def written_continue_in_else(self, quoted):
    while True:
        c = self.read()
        if not c:
            break
        elif c in self.ws:
            self.state = ' '
            if self.token or (self.posix and quoted):
                break
            else:
                continue
        elif c in self.cm:
            self.x()
    return 1
