# min-python: 3.12
"""``try: ... except E: pass finally: if c: f()`` (found on 3.12-3.14, ftplib's FTP.__exit__):
the except clause lies in the cold code and jumps back to the normal exit's copy of the
finally body, which has a branch, so the copy ends with its own ``return None`` instead of
the re-raise; the decompiler took only a copy equal to the finally body for that copy, and
wrote the finally body a second time inside the try."""


def exit_(self, *args):
    if self.sock is not None:
        try:
            self.quit()
        except (OSError, EOFError):
            pass
        finally:
            if self.sock is not None:
                self.close()


def except_then_branching_finally(self):
    try:
        self.quit()
    except OSError:
        pass
    finally:
        if self.sock is not None:
            self.close()
