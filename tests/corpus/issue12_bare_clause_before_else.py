"""A try with a bare ``except:`` that raises, last in an if body that has an else
(socketserver.BaseServer._handle_request_noblock): the clauses before it jump to the end of
the if statement, past the else, which is outside the if body being read; the bare clause
was taken to run up to there, so it swallowed the else (3.8/3.9)."""


def handle(self, request, verify, process, shutdown):
    if verify(request):
        try:
            process(request)
        except Exception:
            self.handle_error(request)
            shutdown(request)
        except:
            shutdown(request)
            raise
    else:
        shutdown(request)


def small(v, p, q, r, E):
    if v:
        try:
            p()
        except E:
            r()
        except:
            q()
            raise
    else:
        q()
