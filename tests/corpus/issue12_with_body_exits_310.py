# max-python: 3.11
"""Ways out of a ``with`` body on 3.10 (found in multiprocessing.synchronize's Event.is_set,
socket.has_dualstack_ipv6, distutils' config._gen_temp_sourcefile, ftplib.retrbinary): 3.10
copies the exit call, and the short code after the statement, into every way out of the
body. A ``return`` written last in the body is no such copy (the exit handler goes on with
other code), and an ``if`` ending the body leaves each branch through its own copy of the
exit call.
3.12+ read the first two wrongly too (the exit handler is cold there), not fixed here."""


def is_set(self):
    with self._cond:
        if self._flag.acquire(False):
            self._flag.release()
            return True
        return False


def has_dualstack(socket, error):
    try:
        with socket() as sock:
            sock.setsockopt(0)
            return True
    except error:
        return False


def gen_source(body, filename):
    with open(filename, "w") as file:
        file.write(body)
        if body[-1] != "\n":
            file.write("\n")
    return filename


def retrieve(self, cmd, callback, ssl_socket):
    with self.transfercmd(cmd) as conn:
        while 1:
            data = conn.recv(8192)
            if not data:
                break
            callback(data)
        if ssl_socket is not None and isinstance(conn, ssl_socket):
            conn.unwrap()
    return self.voidresp()
