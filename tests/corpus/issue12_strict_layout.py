"""Shapes the decompiler now lays out as written so that they are strictly exact on 3.12
(tests/test_strict_layout.py); here they must stay exact on every version."""


def try_except_else_finally(self, fut, sock):
    fd = sock.fileno()
    try:
        sock.connect(fd)
    except (BlockingIOError, InterruptedError):
        self.wait(fd)
    except BaseException as exc:
        fut.set_exception(exc)
    else:
        fut.set_result(None)
    finally:
        fut = None


def statements_with_handlers_after_try(fp, size):
    try:
        try:
            data = fp.read(size)
        except OSError:
            raise ValueError(size)
        try:
            fp.seek(0)
        except OSError:
            raise ValueError(0)
    finally:
        fp.close()


def if_ending_loop_body(decoder, iterator):
    for item in iterator:
        output = decoder.decode(item)
        if output:
            yield output
    output = decoder.decode(b"", True)
    if output:
        yield output


def written_continues(cookies, ignore_discard, ignore_expires, now, jar):
    for c in cookies:
        if not ignore_discard and c.discard:
            continue
        if not ignore_expires and c.is_expired(now):
            continue
        jar.set_cookie(c)


def break_before_return(self):
    plist = []
    while self.pos < len(self.field):
        if self.field[self.pos] in self.FWS:
            self.pos += 1
        elif self.field[self.pos] in self.phraseends:
            break
        else:
            plist.append(self.getatom())
    return plist


def break_out_of_endless_loop(self):
    result = []
    while True:
        line = self.readline()
        if not line:
            break
        result.append(line)
    return result


def written_return_last_in_endless_loop(items):
    while True:
        item = items.pop()
        if item.ok:
            return item


def try_except_finally_ending_function(self, request, address):
    try:
        self.finish_request(request, address)
    except Exception:
        self.handle_error(request, address)
    finally:
        self.shutdown_request(request)


def elif_chain_ending_loop_body(keys, found, hour):
    for key in keys:
        if key == 'H':
            hour = int(found['H'])
        elif key == 'I':
            ampm = found.get('p', '').lower()
            if ampm == 'am':
                if hour == 12:
                    hour = 0
            elif ampm == 'pm':
                if hour != 12:
                    hour += 12
    return hour



def continue_inside_if_before_else(node, results, names_inserted):
    args = results["args"]
    new_args = []
    iterator = enumerate(args)
    for idx, arg in iterator:
        if arg.type == 1 and arg.value in names_inserted:
            if idx < len(args) - 1 and args[idx + 1].type == 12:
                next(iterator)
                continue
        else:
            new_args.append(arg)
            if arg.type == 1:
                names_inserted.add(arg.value)
    return new_args



def nested_withs(src, dst):
    with open(src) as a:
        with open(dst, 'w') as b:
            b.write(a.read())


def or_test_ending_loop_body(self, chunk, count):
    for i in range(count):
        id = read(chunk)
        pos = read(chunk)
        if pos or id:
            self.markers.append((id, pos))


def break_before_statements_after_endless_loop(new_exc, old_exc, frame_exc):
    while 1:
        exc_context = new_exc.__context__
        if exc_context is None or exc_context is old_exc:
            return
        if exc_context is frame_exc:
            break
        new_exc = exc_context
    new_exc.__context__ = old_exc


def break_before_statements_after_loop(items, out):
    for item in items:
        if item is None:
            break
        out.append(item)
    out.sort()
    return out



def if_ending_in_break_first_in_loop(cookies, request):
    for cookie in cookies:
        if cookie.version != 1:
            request.add_unredirected_header("Cookie2", '$Version="1"')
            break


def if_debug_block(self):
    """Send NOOP command."""
    if __debug__:
        if self.debug >= 3:
            self._dump_ur(self.untagged_responses)
    return self._simple_command('NOOP')


def try_body_on_try_line(file, highlight):
    def reader(lnum=[0]):
        highlight[lnum[0]] = 1
        try: return linecache.getline(file, lnum[0])
        finally: lnum[0] += 1
    return reader
