"""``if ...: continue`` ending both branches of an if/else in a loop body, code after it
(found on 3.8/3.9, logging.handlers' getFilesToDelete): a jump back to the loop head right
before code that a test jumps to was taken for the if body's jump over an else, threaded to
the loop head, and sent to the loop's last back edge; a ``continue`` written on its own line,
or one followed by the dead jump over the enclosing else, is a statement."""


def files(self, file_names, base_name, e):
    result = []
    for file_name in file_names:
        if self.namer is None:
            if not file_name.startswith(base_name):
                continue
        else:
            if not file_name.startswith(base_name) and file_name.endswith(e):
                continue
        result.append(file_name)
    return result
