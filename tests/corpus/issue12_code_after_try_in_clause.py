"""The code after a try statement that only its except clauses reach. 3.12+ lays it out after
the clause's POP_EXCEPT (cold, like the handler); it is no `return` of the clause, whose value
would be computed before POP_EXCEPT. Also an exit block copied after `except E as name:`,
past the name's unbinding."""


def returned_in_body(mapping, key, default):
    try:
        return mapping[key]
    except KeyError:
        mapping[key] = default
    return default


def else_returns(obj):
    try:
        method = obj.get_loop
    except AttributeError:
        pass
    else:
        return method()
    return obj.loop


def named_clause(grammar, path, save, force, log):
    if force:
        table = grammar.generate(path)
        if save:
            try:
                table.dump(path)
            except OSError as exc:
                log.info("Writing failed: %s", exc)
    else:
        table = grammar.load(path)
    return table


def written_return_in_loop(finders, name):
    for finder in finders:
        try:
            find = finder.find_spec
        except AttributeError:
            return name
        spec = find(name)
        if spec is not None:
            return spec
    return None


def return_in_clause_under_finally(stream, source):
    try:
        try:
            return compile(source, "<string>", "exec")
        except SyntaxError as error:
            stream.write(str(error))
            return False
    finally:
        stream.flush()


def copied_into_branches(self, first, second, n):
    # `return text` is copied after the try body and into each branch ending the clause
    try:
        text = self.catalog[(first, self.plural(n))]
    except KeyError:
        if self.fallback:
            return self.fallback.ngettext(first, second, n)
        if n == 1:
            text = first
        else:
            text = second
    return text


def copied_after_each_clause(self, key):
    try:
        value = self.data[key]
    except KeyError:
        value = 1
    except IndexError:
        value = 2
    return value
