"""A ``try`` whose clause falls through, then a ``return``, ending a branch of a final
if/else (found on 3.8/3.9, idlelib's redirector.unregister and iomenu.defaultfilename): the
function's dead ``return None`` says the last if had an else; the return after the try is
not the try's ``else`` (a clause goes on to it), and an ``if`` whose else only that dead
return revealed needs no compound statement before its body's return."""


def unregister(self, operation):
    if operation in self._operations:
        function = self._operations[operation]
        del self._operations[operation]
        try:
            delattr(self.widget, operation)
        except AttributeError:
            pass
        return function
    else:
        return None


def defaultfilename(self, os):
    if self.filename:
        return os.path.split(self.filename)
    elif self.dirname:
        return self.dirname, ""
    else:
        try:
            pwd = os.getcwd()
        except OSError:
            pwd = ""
        return pwd, ""
