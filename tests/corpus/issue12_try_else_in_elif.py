"""try/except/else in an elif branch followed by an else and more code (pydoc
``TextDoc.docroutine``): 3.12+ lays the handler out at the end, and its clause jumps where
the branch goes, past the enclosing else; so does the end of the branch. The code between
the try body and that jump is the try's else, not code after the try statement."""


def docroutine(object, cl, homecls):
    note = ""
    imfunc = None
    if is_bound(object):
        note = " bound"
    elif is_descriptor(object):
        try:
            objclass = object.__objclass__
        except AttributeError:
            pass
        else:
            if cl is None:
                note = " unbound %s method" % objclass
            elif objclass is not homecls:
                note = " from " + objclass
    else:
        imfunc = object
    if note:
        report(note, imfunc)
    return note
