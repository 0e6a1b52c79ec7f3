# 3.10: the return after a `with` in a `try` is an inlined exit copy that starts at a POP_BLOCK;
# normalization once dropped the jump it stands for, so the with body fell into its handler
# (tools/cfg_check.py: "a handler is entered only by exception edges").

def writefile(self, filename):
    text = self.fixnewlines()
    chars = self.encode(text)
    try:
        with open(filename, "wb") as f:
            f.write(chars)
            f.flush()
            os.fsync(f.fileno())
        return True
    except OSError as msg:
        messagebox.showerror("I/O Error", str(msg),
                               parent=self.text)
        return False
