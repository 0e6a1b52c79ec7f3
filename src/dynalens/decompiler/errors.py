"""The one exception type the decompiler raises.

Callers inside a user's program (the lens) catch exactly this type and fall back to an annotated
disassembly, so it carries everything needed to say *where* decompilation stopped: the code
object, the instruction offset and the opcode name.
"""


class DecompilationError(Exception):
    """Bytecode that the decompiler cannot turn back into source."""

    def __init__(self, message, code=None, offset=None, opname=None):
        self.code = code
        self.offset = offset
        self.opname = opname
        where = []
        if code is not None:
            where.append("in %s (%s:%s)" % (
                getattr(code, "co_qualname", code.co_name), code.co_filename, code.co_firstlineno))
        if offset is not None:
            where.append("at offset %d" % offset)
        if opname is not None:
            where.append("opcode %s" % opname)
        self.message = message
        super().__init__(message + (" [" + ", ".join(where) + "]" if where else ""))
