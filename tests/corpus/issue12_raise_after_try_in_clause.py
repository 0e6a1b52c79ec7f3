# min-python: 3.11
"""``except: try: cleanup() except E: pass`` then a bare ``raise`` (found on 3.12-3.14,
importlib's _write_atomic, imaplib's IMAP4.__init__): 3.12+ copies the ``raise`` after the
inner clause's POP_EXCEPT, so the inner try body falls into one copy and the clause ends with
another; the decompiler read the first as the try's ``else: raise`` and the second as a
``raise`` in the clause. (3.8-3.10 read the inner try wrong here too, with their own
templates: not this shape's, left to the legacy modules.)"""


def write_atomic(path_tmp, data):
    try:
        write(path_tmp, data)
    except OSError:
        try:
            unlink(path_tmp)
        except OSError:
            pass
        raise


def shutdown_then_raise(self):
    try:
        self.open()
    except:
        try:
            self.shutdown()
        except (OSError, ValueError):
            pass
        raise


def return_after_cleanup(path):
    try:
        return read(path)
    except OSError:
        try:
            unlink(path)
        except OSError:
            pass
        return -1
