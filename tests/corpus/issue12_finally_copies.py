# min-python: 3.11
"""The normal exit's copy of a finally body, which must not be read as part of the try body.

* A try/finally that does not end the function, whose finally body has branches: each way out
  of the handler's copy re-raises (the compiler copies the final RERAISE into the branches),
  and the normal exit's copy goes on after the statement there, or jumps there
  (3.11: ``timeit.Timer.timeit``, ``logging.FileHandler.close``).
* A finally body holding a try/finally, at the end of the function: the handler's copy jumps to
  the final RERAISE past the inner handler, the normal exit's copy returns right there and
  leaves the inner handler after its return (3.11: ``bz2.BZ2File.close``,
  ``logging.handlers.MemoryHandler.close``).

3.10 reads most of these wrong (its SETUP_FINALLY layout); issue12_finally_copies_311.py has
two more that only 3.11 reads right."""


def finally_if(self, gcold, number):
    it = make(number)
    try:
        timing = self.inner(it)
    finally:
        if gcold:
            enable()
    return timing


def finally_if_else(lock, value):
    try:
        value.update()
    finally:
        if lock:
            lock.release()
        else:
            report()
    print(value)


def finally_nested_if(stream, closing):
    try:
        stream.flush()
    finally:
        if stream is not None:
            if closing:
                stream.close()
    stream = None
    return stream


def finally_holds_try_finally(self):
    try:
        self.a()
    finally:
        try:
            self.b()
        finally:
            self.c = None


def finally_holds_try_finally_after_branches(self, mode):
    if mode == 0:
        return
    try:
        if mode == 1:
            self.buffer.close()
        elif mode == 2:
            self.fp.write(self.flush())
    finally:
        try:
            if self.closefp:
                self.fp.close()
        finally:
            self.fp = None
            self.mode = 0



def finally_if_at_the_end(self):
    # each way out of the normal exit's copy returns; the jump past the if reaches a copy of
    # the return that the exit table may have detached (ftplib.FTP.close)
    try:
        file = self.file
        if file is not None:
            file.close()
    finally:
        sock = self.sock
        if sock is not None:
            sock.close()



def finally_holds_try_except_at_the_end(cmd, tmp):
    try:
        run(cmd)
    finally:
        try:
            unlink(tmp)
        except OSError:
            pass
