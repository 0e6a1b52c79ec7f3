# min-python: 3.9
"""A named except clause whose body ends with if/else that both raise, then an ``else``
(found on 3.9, mailbox.MaildirMessage's remove): the clause's exit (``POP_BLOCK;
POP_EXCEPT; e = None; del e; JUMP_FORWARD``) is dead code after the raise, and only its jump
says where the try statement ends, after the else. (3.8 shares the name's cleanup and
reads this shape wrongly still.)"""


def remove(self, key, os, errno):
    path = os.path.join(self._path, str(key))
    try:
        f = open(path, 'rb+')
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise KeyError('No message with key: %s' % key)
        else:
            raise
    else:
        f.close()
        os.remove(path)
