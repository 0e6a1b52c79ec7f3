# min-python: 3.8
"""A for/else in the else of a try whose clause falls into a small exit (``return name``):
3.12+ copies the exit after the clause, after the try's else and into the loop's break; the
else's copy is where the try statement ends, so the break's copy is found right at the end
of the range being walked (socket.getfqdn)."""


def getfqdn(name):
    try:
        hostname, aliases = get(name)
    except error:
        pass
    else:
        aliases.insert(0, hostname)
        for name in aliases:
            if '.' in name:
                break
        else:
            name = hostname
    return name
