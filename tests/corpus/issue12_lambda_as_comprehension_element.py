"""A lambda as the element of a comprehension or generator expression (found on 3.14,
asyncio.base_events create_connection's happy eyeballs): the element stayed the internal
function value and the walker raised an internal AttributeError (all versions)."""


async def connect(self, infos, exceptions, laddr_infos, race):
    sock = await race(
        (lambda addrinfo=addrinfo: self._connect_sock(exceptions, addrinfo, laddr_infos)
         for addrinfo in infos),
        1)
    return sock


def in_list(infos):
    return [lambda a=a: a for a in infos]


def in_dict(infos):
    return {a: lambda a=a: a for a in infos}


def in_call(infos):
    return list(lambda a=a: a for a in infos)
