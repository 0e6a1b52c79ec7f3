# max-python: 3.11
"""``try``/``except``/``else`` in a loop where the else only breaks, or a clause breaks
(found on 3.8/3.9, asyncio.tasks.all_tasks, code.interact, _sitebuiltins' __call__): the try
body's exit jump is threaded straight to the loop exit (or the loop head), and only dead code
after the handlers (the else's ``break``, a clause's jump to where the try ends) tells the
source's shape.
3.12+ read ``all_tasks`` wrongly too (the handlers are cold there), not fixed here."""


def all_tasks(_all_tasks):
    i = 0
    while True:
        try:
            tasks = list(_all_tasks)
        except RuntimeError:
            i += 1
            if i >= 1000:
                raise
        else:
            break
    return {t for t in tasks}


def interact(self, sys):
    more = 0
    while 1:
        try:
            if more:
                prompt = sys.ps2
            else:
                prompt = sys.ps1
            try:
                line = self.raw_input(prompt)
            except EOFError:
                self.write("\n")
                break
            else:
                more = self.push(line)
        except KeyboardInterrupt:
            self.write("\nKeyboardInterrupt\n")
            more = 0
    self.done()


def pager(self, prompt):
    lineno = 0
    while 1:
        try:
            for i in range(lineno, lineno + self.MAXLINES):
                print(self.lines[i])
        except IndexError:
            break
        else:
            lineno += self.MAXLINES
            key = None
            while key is None:
                key = input(prompt)
                if key not in ('', 'q'):
                    key = None
            if key == 'q':
                break
