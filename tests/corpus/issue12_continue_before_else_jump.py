"""``if ...: continue`` ending the body of an if that has an else, in a loop body with code
after the if/else (found on 3.8/3.9, logging.handlers' getFilesToDelete): the jump back to
the loop head, right before the dead jump over the else, was taken for the if body's own
jump over the else threaded to the loop head and sent to the loop's last back edge.
(A ``continue`` ending the else's nested if, right before the code after, still reads so.)"""


def files(self, file_names, base_name, e):
    result = []
    for file_name in file_names:
        if self.namer is None:
            if not file_name.startswith(base_name):
                continue
        else:
            file_name = file_name.strip(e)
        result.append(file_name)
    return result
