"""An ``if`` whose body is only a ``while`` (found on 3.8/3.9, concurrent.futures.process's
clear and _compression's seek): 3.8/3.9 test a ``while`` at the top only, so its test jumps
where the if's does and the two read like one condition ``if not a and b:``; the loop head
starts the if's body instead."""


def clear(self):
    if not self._closed:
        while self._reader.poll():
            self._reader.recv_bytes()


def seek(self, whence, offset):
    if whence == 0:
        pass
    elif whence == 1:
        offset = self._pos + offset
    elif whence == 2:
        if self._size < 0:
            while self.read(5):
                pass
        offset = self._size + offset
    else:
        raise ValueError("Invalid value for whence")
    return offset
