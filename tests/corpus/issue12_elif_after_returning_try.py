"""An if/elif whose first body is a try whose body returns (ftplib ``FTP.cwd``, xmlrpc
``decode_request_content``): 3.12+ lays the except clauses out at the end, and the clause
that falls off the try jumps past the elif (or else). That jump, in the cold code, is the
one that says where the if statement ends."""


def cwd(self, dirname):
    if dirname == "..":
        try:
            return self.voidcmd("CDUP")
        except error_perm as msg:
            if msg.args[0][:3] != "500":
                raise
    elif dirname == "":
        dirname = "."
    cmd = "CWD " + dirname
    return self.voidcmd(cmd)


def decode(self, data, encoding):
    if encoding == "gzip":
        try:
            return gzip_decode(data)
        except NotImplementedError:
            self.send_response(501, encoding)
        except ValueError:
            self.send_response(400, "error decoding gzip content")
    else:
        self.send_response(501, encoding)
    self.send_header("Content-length", "0")
    self.end_headers()
