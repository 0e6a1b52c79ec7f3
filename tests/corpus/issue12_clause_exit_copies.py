"""Except clauses whose exit 3.13 copies into an if that ends the clause (POP_EXCEPT and the
jump back to the join after the cold handler, in the if's body), and tuple targets that store
one local twice in a row (3.13+ writes the first store as POP_TOP)."""


def phrase_of(value, phrase, get_word, get_cfws, leader):
    while value and value[0] not in ".;":
        try:
            token, value = get_word(value)
        except ValueError:
            if value[0] in leader:
                token, value = get_cfws(value)
            else:
                raise
        phrase.append(token)
    return phrase, value


def tags_of(group):
    return [tag for tag, _, _, _, _ in group]


def any_deleted(group):
    return any(tag in {"replace", "delete"} for tag, _, _ in group)


def first_and_last(items):
    first, _, _ = items
    for a, b, b in items:
        yield a, b
