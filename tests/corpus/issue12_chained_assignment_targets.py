"""A chained assignment with a name between attribute or subscript targets (turtledemo:
``self.root = root = turtle._root = Tk()``): the name was read as a walrus in the last target's
value, ``t._root = (root := Tk())``, and ``Tk()`` was written twice, on every version. A
walrus stores before any target of its statement, so a name stored after one is a target."""


def name_between_attributes(self, make, turtle):
    self.root = root = turtle._root = make()
    return root


def name_between_subscripts(d, k, make):
    d[k] = value = d[k + 1] = make()
    return value


def walrus_into_an_attribute(self, make):
    self.root = (root := make())
    return root


def walrus_then_chain(self, make, t):
    self.a = t.b = (c := make())
    return c
