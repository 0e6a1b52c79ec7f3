# min-python: 3.11
"""A try statement with an else that ends the function, whose handler 3.12+ lays out after
the else: no clause jumps back, each falls off into a copy of the implicit ``return None``
(with the line of the code before it), so the code after the try body is its else, not code
after the statement."""


def write_send(self, buffer):
    try:
        n = self._sock.send(buffer)
    except (BlockingIOError, InterruptedError):
        pass
    except BaseException as exc:
        self._fatal_error(exc, "Fatal write error on socket transport")
        if self._empty_waiter is not None:
            self._empty_waiter.set_exception(exc)
    else:
        self._maybe_resume_protocol()
        if self._closing:
            self._call_connection_lost(None)
        elif self._eof:
            self._sock.shutdown(n)


def accept(self, f):
    try:
        if f:
            f.result()
        f = self.accept_pipe()
    except OSError:
        if f:
            f.close()
    else:
        self.future = f
        f.add_done_callback(self.accept)


def written_return(self):
    try:
        self.run()
    except KeyError:
        return None
    self.done()


def terminate(self):
    # the else holds a try of its own, whose handler was compiled (and laid out) before the
    # outer one: code compiled after the statement comes after its handler
    try:
        self.proc.kill()
    except OSError:
        return
    else:
        try:
            self.proc.wait()
        except OSError:
            return


def runcode(self, code):
    # the body ends with a try/finally whose handler lies before this one's: the else is the
    # warm code up to the cold blocks
    global interruptable
    try:
        interruptable = True
        try:
            exec(code, self.locals)
        finally:
            interruptable = False
    except SystemExit as e:
        if e.args:
            ob = e.args[0]
    except:
        self.user_exc_info = sys.exc_info()
    else:
        flush_stdout()
