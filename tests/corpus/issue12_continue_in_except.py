"""`continue` written as the last statement of an except clause that ends a loop body: 3.8/3.9
thread the clause's own exit to the loop head too, so only the dead copy of that exit left
after the written `continue` tells the two apart (issue 12)."""


def continue_in_except(self, key):
    for inst in self.items():
        try:
            delattr(inst, key)
        except AttributeError:
            continue


def pass_in_except(self, key):
    for inst in self.items():
        try:
            delattr(inst, key)
        except AttributeError:
            pass


def continue_in_named_except(paths, log):
    for path in paths:
        try:
            path.unlink()
        except OSError as exc:
            log(exc)
            continue


def continue_after_other_clauses(items, ignore):
    for x in items:
        try:
            x.close()
        except KeyError:
            raise
        except OSError:
            if not ignore:
                raise
            continue
        except:
            if not ignore:
                raise
