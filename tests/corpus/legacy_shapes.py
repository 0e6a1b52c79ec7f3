# max-python: 3.11
"""Shapes the 3.8-3.10 templates need: try/except/else/finally and with over SETUP_* blocks,
returns inside them (ROT_FOUR/POP_EXCEPT, 3.8's CALL_FINALLY and WITH_CLEANUP), while loops
tested only at the top, jumps the 3.8/3.9 peephole threaded into loop heads and past dead
jumps, the dead trailing return of a body ending in a compound statement, 3.10's copies of
small return blocks, chained comparisons (DUP_TOP; ROT_THREE), 3.8's assert.  Ordinary Python:
3.11 checks them too (3.12+ not yet: see the 3.12 notes in tools/VERSION_NOTES.md)."""


def f(a):
    try:
        x = a()
    except ValueError as e:
        x = e
    except (KeyError, TypeError):
        x = 2
    except:
        x = 3
    else:
        x = 4
    return x


def g(a):
    try:
        return a()
    finally:
        a.close()


def h(a):
    with a as b:
        c(b)
    return 1


async def k(a):
    async for x in a:
        await x
    async with a as b:
        pass


def y(a):
    yield from a


def _islogical(self):
    for dig in self._int:
        if dig not in '01':
            return False
    return True


def f_3(group, a):
    for tag, i1 in group:
        if tag == 'equal':
            for line in a:
                yield ' ' + line
            continue
        if tag in {'replace', 'delete'}:
            for line in a:
                yield '-' + line
        if tag in {'replace', 'insert'}:
            yield 2


def g_2(a, b):
    if a in b:
        return 1
    return a is b or a not in b


def f_4(group, a):
    for tag in group:
        if tag == 'x':
            continue
        if tag in a:
            yield 2


def f_5(a, b, c):
    if not (a <= b <= c):
        return 1
    return 2


def h_2(d, x):
    if isinstance(d, int) and 0 <= d <= 9:
        x.append(d)
    else:
        raise ValueError


def f_6(a, b, c):
    if a:
        x = 1
        if b:
            return 0
        elif c:
            return 1
        else:
            return 2
    elif b > c:
        return 3
    else:
        return 4


def f_7(a):
    with a as b:
        return b.x()


def g_4(a):
    try:
        return a()
    except E as e:
        return e


def k_2(a):
    with a:
        pass


def readline(self, size):
    res = bytearray()
    while size < 0 or len(res) < size:
        b = self.read()
        if not b:
            break
        res += b
        if res.endswith(b"\n"):
            break
    return bytes(res)


def f_8(old_params, ba):
    for param_name, param in old_params.items():
        try:
            arg_value = ba.arguments[param_name]
        except KeyError:
            pass
        else:
            if param.kind is _POSITIONAL_ONLY:
                new_params.pop(param_name)
                continue
            if param.kind is _KEYWORD_ONLY:
                new_params[param_name] = 1
    return 5


def f_9(self):
    if self._is_special:
        if self.is_nan():
            raise ValueError("a")
        else:
            raise OverflowError("b")
    return int(self)


def f_10(group):
    assert group is None, 'group argument must be None for now'
    return 1


def g_5(a, b):
    assert a is not b


def h_4(a, b):
    if not (type(a) is b and a.x == 1):
        return a


def s(self):
    for i in range(3):
        time.sleep(i)
        try:
            self.rpcclt = MyRPCClient(addr)
            break
        except OSError:
            pass
    else:
        return self.display_port_binding_error()
    return 1


def c(src, dst, names):
    for name in names:
        try:
            value = os.getxattr(src, name)
            os.setxattr(dst, name, value)
        except OSError as e:
            if e.errno not in (1, 2):
                raise


def t(args, names_inserted, new_args):
    for idx, arg in iterator:
        if arg.type == 1 and arg.value in names_inserted:
            if idx < 3:
                next(iterator)
                continue
        else:
            new_args.append(arg)
