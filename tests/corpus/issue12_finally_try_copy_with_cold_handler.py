# min-python: 3.12
"""A finally body that is itself a try/except, after a try body with a cold except clause
(found on 3.12-3.14, shelve's Shelf.close, socketserver, fileinput): the normal exit's copy
of the finally body has its own except handler laid out cold, after the try body's clause,
so the copy is not one run of instructions; the decompiler did not find it and wrote the
finally body a second time inside the try."""


def close(self):
    if self.dict is None:
        return
    try:
        self.sync()
        try:
            self.dict.close()
        except AttributeError:
            pass
    finally:
        try:
            self.dict = ClosedDict()
        except:
            self.dict = None


def clause_then_finally_try(self):
    try:
        self.sync()
    except AttributeError:
        pass
    finally:
        try:
            self.dict = ClosedDict()
        except:
            self.dict = None
