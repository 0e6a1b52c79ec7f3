"""A function that ends with an `if` whose body returns and whose `else` holds the rest: 3.8/3.9
delete the jump over the `else` after a `return` and keep a dead `return None` at the end, so
the `else` body must be rebuilt from what follows. Loops and `with` statements whose block ends
in a `return` leave no dead return, and an `if` that ends in `raise` keeps its (dead) jump over
an `else` only when it has one (issue 12)."""


def loop_in_else(self, size):
    if size < 0:
        self._snapshot = None
        return self.result
    else:
        eof = False
        while len(self.result) < size and not eof:
            eof = not self._read_chunk()
        return self.result


def for_in_else(action, parts):
    if not action.option_strings:
        return action.dest
    else:
        if action.nargs == 0:
            parts.extend(action.option_strings)
        else:
            for option_string in action.option_strings:
                parts.append(option_string)
        return ', '.join(parts)


def if_else_in_else(self, objects):
    if self.force:
        return True
    else:
        if self.dry_run:
            newer = self.newer_group(objects, missing='newer')
        else:
            newer = self.newer_group(objects)
        return newer


def raise_without_else(self, chunksize):
    self.check()
    if chunksize == 1:
        result = self.make(1)
        return result
    else:
        if chunksize < 1:
            raise ValueError(chunksize)
        batches = self.tasks(chunksize)
        return (item for chunk in batches for item in chunk)


def raise_with_else(self, tarinfo):
    if tarinfo.isreg():
        return self.fileobject(tarinfo)
    elif tarinfo.islnk():
        if isinstance(self.fileobj, int):
            raise ValueError("cannot extract")
        else:
            return self.extractfile(tarinfo.target)
    else:
        return None


def else_ends_try_body(self, size, buffer):
    try:
        if buffer is not None:
            return self.read_into(size, buffer)
        else:
            return self.read(size)
    except OSError as exc:
        if exc.args[0] == 0 and self.suppress:
            return 0
        else:
            raise


def else_ends_loop_body(items, pick):
    for item in items:
        if pick(item):
            return item
        else:
            item.skip()
            return None
    return pick


def else_ends_handler(self, name):
    try:
        value = self.lookup(name)
    except KeyError:
        if self.strict:
            return None
        else:
            self.missing.add(name)
            return name
    return value
