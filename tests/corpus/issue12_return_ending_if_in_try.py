# min-python: 3.11
"""A ``return <constant>`` that ends an if body at the end of a try body: the compiler leaves
a constant return out of the protected range, so it reads like the try's ``else`` unless the
if's jump past it (to the code after the try) is seen (3.12+)."""


def insert(self, index, chars, tags=None):
    try:
        if self.delegate.compare(index, "<", "iomark"):
            self.delegate.bell()
            return
    except TclError:
        pass
    UndoDelegator.insert(self, index, chars, tags)


def find_again(self, text):
    try:
        if text.first == text.last:
            self.bell()
            return False
    except TclError:
        pass
    text.see("insert")
    return True


def recall(self, sel, event):
    try:
        if sel:
            if self.text.compare("sel.last", "<=", "iomark"):
                self.recall(sel, event)
                return "break"
    except:
        pass
    return self.other()


def try_else_return(f, g):
    try:
        if f():
            g()
    except ValueError:
        pass
    else:
        return None
    g()
