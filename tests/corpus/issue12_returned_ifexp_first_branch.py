"""``return a if c else b`` where ``if c: return a`` then ``return b`` is other code (found on
3.8/3.9, idlelib's help_about.build_bits and autocomplete_event): the peephole pass replaces
the first branch's jump to the shared RETURN_VALUE by a copy of it and leaves no dead jump
after it, the other branch following on the same line; a written if/else keeps a dead
jump over its else. And the constant ``None`` of the second branch, last before the dead
implicit return, was taken for the implicit return itself."""


def build_bits(sys, architecture):
    "Return bits for platform."
    if sys.platform == 'darwin':
        return '64' if sys.maxsize > 2**32 else '32'
    else:
        return architecture()[0][:2]


def autocomplete_event(self, event, tab):
    if self.x:
        return None
    if self.window and self.window.is_active():
        self.window.complete()
        return "break"
    else:
        opened = self.open_completions(tab)
        return "break" if opened else None



def chained(b, c):
    x = b + 1
    return 1 if b else 2 if c else x
