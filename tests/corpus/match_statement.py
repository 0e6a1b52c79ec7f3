# min-python: 3.10
"""match with every pattern kind."""


def match_all(command):
    match command:
        case 0:
            return 'zero'
        case 'a' | 'b':
            return 'letter'
        case [x, y, *rest]:
            return x, y, rest
        case {'key': value, **others}:
            return value, others
        case Point(x=0, y=yy):
            return yy
        case str() as text if text:
            return text
        case None:
            return None
        case _:
            return 'other'
