# max-python: 3.11
# (3.12+ read some of these shapes wrong in other ways: not this fix's)
"""3.8/3.9: ``try``/``except E as e``/``else`` whose named clauses never fall through (they return
or raise: asyncore.dispatcher.accept, xml.dom.xmlbuilder.DOMBuilder.setFeature): the jump the
compiler keeps after the name's cleanup (3.9: dead after a raise) goes past the else, to where
the try ends (or to the loop head, threaded, when the try ends a loop body); it was
not looked at, so the else read as code after the try."""


def returns_in_named_clause(self, g, h, E):
    try:
        b = g()
    except E as err:
        return False
    else:
        h(b)
        return True


def accept(self, EWOULDBLOCK, EAGAIN):
    try:
        conn, addr = self.socket.accept()
    except TypeError:
        return None
    except OSError as why:
        if why.args[0] in (EWOULDBLOCK, EAGAIN):
            return None
        else:
            raise
    else:
        return conn, addr


def raises_in_named_clause(self, name, settings, E):
    if self.supports(name):
        try:
            found = settings[name]
        except KeyError as e:
            raise E("unsupported feature: %r" % (name,)) from None
        else:
            for name, value in found:
                setattr(self, name, value)
    else:
        raise E("unknown feature: " + repr(name))


def else_ends_loop_body(offset, g):
    # (the clause's kept exit jumps to the loop head: the try ends the body, threaded;
    # shutil._fastcopy_sendfile)
    while True:
        try:
            sent = g(offset)
        except OSError as err:
            raise err
        else:
            if sent == 0:
                break
            offset += sent
    return offset


def unnamed_clause_raises(name, modules, g):
    # (3.8/3.9 leave the clause's exit dead after the raise: importlib.reload)
    try:
        if name:
            try:
                parent = modules[name]
            except KeyError:
                raise ImportError(name) from None
            else:
                pkgpath = parent.__path__
        else:
            pkgpath = None
        return pkgpath
    finally:
        g()


def clause_exit_threaded_to_break(self, file, filemode, modeDict, io):
    # (the dead exit goes to the break after the try, threaded: zipfile.ZipFile.__init__)
    while True:
        try:
            self.fp = io.open(file, filemode)
        except OSError:
            if filemode in modeDict:
                filemode = modeDict[filemode]
                continue
            raise
        break
    return 1
