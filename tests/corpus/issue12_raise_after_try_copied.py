"""A short ``raise`` after a try statement (found on 3.10, tkinter._exit,
multiprocessing.reduction.recvfds): 3.10 copies it into the end of the try body and of each
except clause, as it does a short return, and leaves no original; the clause's copy is the
code after the statement, not the clause's own."""


def _exit(code=0):
    try:
        code = int(code)
    except ValueError:
        pass
    raise SystemExit(code)


def checked(sock, size):
    try:
        data = sock.recv(size)
    except OSError:
        data = None
    raise EOFError(data)
