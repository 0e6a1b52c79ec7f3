"""A bare `return` ending a named except clause in the last statement of a function (3.8/3.9):
its line sits on the POP_BLOCK of the clause's own try (normalization drops it) before the
unwinding (POP_EXCEPT, 3.8's CALL_FINALLY, 3.9's `exc = None; del exc`), so the `return None`
after it is written, not the compiler's implicit one (issue 12)."""


def return_in_named_clause(self, data, protocols):
    if not data:
        self.eof()
        return
    if isinstance(self.protocol, protocols.Buffered):
        try:
            protocols.feed(self.protocol, data)
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:
            self.fatal_error(exc, 'Fatal error')
            return
    else:
        self.protocol.data_received(data)
