"""The control-flow graph of one code object, over normalized instructions.

Why: structuring walks ranges of instruction indexes and assumes that a construct is a
contiguous range in source order. From 3.12 CPython's flowgraph passes (``Python/flowgraph.c``)
break that on purpose: handler-only blocks go to the end, exit blocks are copied into every
predecessor, small exits are inlined, jumps are threaded. A graph does not care where a block
is laid out, so this module gives the facts a structurer needs without the layout: blocks,
normal and exception edges, dominators, post-dominators, natural loops and the blocks that are
copies of each other. It is version-neutral: it reads the normalized instructions of
``instructions.normalize`` and the exception entries of ``instructions.exception_entries``
(the 3.11+ exception table, or the regions of the 3.8-3.10 ``SETUP_*`` blocks), so the version
knowledge stays below it.

Nothing structures on it yet (issue 12, step 2): ``tools/cfg_check.py`` checks it against
CPython's own facts and the structurer's ad hoc analyses over the stdlib, on every version.

    graph = build(instrs, entries)       # or from_code(code)
    graph.blocks[i].succs                # [Edge(kind, block)]; kinds: FALL, JUMP, EXCEPTION
    graph.idom(b), graph.dominates(a, b) # over every edge, from the entry block
    graph.ipdom(b)                       # over normal edges, towards the exits
    graph.loops                          # natural loops, innermost last per header nesting
    graph.copies                         # groups of interchangeable blocks (same code, same
                                         # successors): the compiler's exit copies among them
"""

from .instructions import exception_entries, normalize

FALL = "fall"            # to the next block in layout order
JUMP = "jump"            # a jump's target (taken branch)
EXCEPTION = "exception"  # from a block in a protected range to its handler

# Instructions after which control never reaches the next one.
NO_FALLTHROUGH = frozenset(["JUMP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE"])
# Instructions that leave the code object (no successor block).
EXITS = frozenset(["RETURN_VALUE", "RAISE_VARARGS", "RERAISE"])
# 3.8-3.10: the target of a SETUP_* is its handler, reached only when an exception is raised
# (the protected range's exception entries carry that edge); control falls into the body.
SETUPS = frozenset(["SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "SETUP_CLEANUP",
                    "SETUP_EXCEPT", "SETUP_LOOP"])


class Edge(object):
    __slots__ = ("kind", "block")

    def __init__(self, kind, block):
        self.kind, self.block = kind, block

    def __repr__(self):
        return "<%s -> B%d>" % (self.kind, self.block)

    def __eq__(self, other):
        return isinstance(other, Edge) and (self.kind, self.block) == (other.kind, other.block)

    def __hash__(self):
        return hash((self.kind, self.block))


class Block(object):
    """Instructions ``[start, end)``: only the first is a jump target or a handler entry, only
    the last may branch, and every one of them has the same exception handler."""

    __slots__ = ("id", "start", "end", "succs", "preds", "handler", "depth", "lasti",
                 "to_end")

    def __init__(self, id, start, end):
        self.id, self.start, self.end = id, start, end
        self.succs = []        # [Edge], in the order: fall-through, jump, exception
        self.preds = []        # [Edge] whose .block is the predecessor
        self.handler = None    # block id of the exception handler, or None
        self.depth = None      # stack depth the handler unwinds to (exception entry's depth)
        self.lasti = False
        self.to_end = False    # a jump or fall-through past the last instruction

    def __repr__(self):
        return "<B%d [%d,%d) -> %s>" % (self.id, self.start, self.end, self.succs)

    def normal_succs(self):
        return [e.block for e in self.succs if e.kind != EXCEPTION]

    def normal_preds(self):
        return [e.block for e in self.preds if e.kind != EXCEPTION]


class Loop(object):
    """A natural loop: the blocks that reach one of its back edges' sources without passing
    its header. Back edges to one header are one loop."""

    __slots__ = ("header", "back_edges", "body", "parent")

    def __init__(self, header, back_edges, body):
        self.header = header          # block id
        self.back_edges = back_edges  # [source block id]
        self.body = body              # frozenset of block ids, header included
        self.parent = None            # header of the innermost loop containing this one

    def __repr__(self):
        return "<loop B%d back from %s, %d blocks>" % (self.header, self.back_edges,
                                                        len(self.body))


def jump_target(ins):
    """Where a normalized instruction really jumps (structuring may redirect ``target`` to a
    virtual label and keep the code's own in ``original_target``)."""
    original = getattr(ins, "original_target", None)
    return ins.target if original is None else original


class CFG(object):
    """Blocks and edges of one instruction list, with the analyses computed on first use."""

    def __init__(self, instrs, entries):
        self.instrs = instrs
        self.entries = list(entries)
        self.n = len(instrs)
        self.blocks = []
        self.block_at = [0] * self.n   # instruction index -> block id
        self._build()
        self._idom = None
        self._ipdom = None
        self._loops = None
        self._irreducible = None
        self._copies = None
        self._rpo = None

    # -- construction -----------------------------------------------------------------------
    def _build(self):
        instrs, n = self.instrs, self.n
        if not n:
            return
        leaders = set([0])
        for ins in instrs:
            t = jump_target(ins)
            if t is not None:
                if t < n:
                    leaders.add(t)
                leaders.add(ins.index + 1)
            elif ins.op in NO_FALLTHROUGH:
                leaders.add(ins.index + 1)
        handler_of = [None] * n
        for e in self.entries:
            for at in (e.start, e.end, e.target):
                leaders.add(at)
            for k in range(e.start, min(e.end, n)):
                if handler_of[k] is None:  # (entries do not overlap; the first one wins)
                    handler_of[k] = e
        starts = sorted(k for k in leaders if 0 <= k < n)
        for number, start in enumerate(starts):
            end = starts[number + 1] if number + 1 < len(starts) else n
            block = Block(number, start, end)
            self.blocks.append(block)
            for k in range(start, end):
                self.block_at[k] = number
        for block in self.blocks:
            last = instrs[block.end - 1]
            t = jump_target(last)
            falls = last.op not in NO_FALLTHROUGH
            if falls:
                self._edge(block, FALL, block.end)
            if t is not None and last.op not in SETUPS:
                self._edge(block, JUMP, t)
            entry = handler_of[block.start]
            if entry is not None:
                block.depth, block.lasti = entry.depth, entry.lasti
                if entry.target < n:
                    block.handler = self.block_at[entry.target]
                    self._add(block, EXCEPTION, block.handler)
        for e in self.entries:
            if e.start == e.end < n and e.target < n and e.target != e.start:
                # a range inside one instruction that normalization folded several into (the
                # yield of an await loop, SEND_LOOP): that instruction can raise into it too
                # (unless the handler was folded into it as well: 3.12+'s CLEANUP_THROW)
                self._add(self.blocks[self.block_at[e.start]], EXCEPTION,
                          self.block_at[e.target])

    def _edge(self, block, kind, index):
        if index >= self.n:
            block.to_end = True
            return
        self._add(block, kind, self.block_at[index])

    def _add(self, block, kind, target):
        edge = Edge(kind, target)
        if edge in block.succs:
            return  # a conditional jump to the next instruction: one edge
        block.succs.append(edge)
        self.blocks[target].preds.append(Edge(kind, block.id))

    # -- reachability -----------------------------------------------------------------------
    def reachable(self, exceptions=True):
        """Block ids reachable from the entry (over normal edges only with exceptions=False)."""
        if not self.blocks:
            return set()
        seen = set([0])
        todo = [0]
        while todo:
            b = todo.pop()
            for e in self.blocks[b].succs:
                if (exceptions or e.kind != EXCEPTION) and e.block not in seen:
                    seen.add(e.block)
                    todo.append(e.block)
        return seen

    def exception_only(self):
        """Reachable blocks that normal control flow never reaches: handlers and the code only
        they lead to (3.12+ lays these out after everything else)."""
        return self.reachable() - self.reachable(exceptions=False)

    def reverse_postorder(self):
        """Reachable block ids in reverse postorder of a depth-first walk over every edge."""
        if self._rpo is None:
            self._rpo = _reverse_postorder(
                0 if self.blocks else None, lambda b: [e.block for e in self.blocks[b].succs])
        return self._rpo

    # -- dominators -------------------------------------------------------------------------
    def idom(self, b):
        """The immediate dominator of block ``b`` over every edge (None for the entry and for
        unreachable blocks)."""
        if self._idom is None:
            order = self.reverse_postorder()
            self._idom = _dominators(order, lambda b: [e.block for e in self.blocks[b].preds])
        parent = self._idom.get(b)
        return None if parent == b else parent

    def dominates(self, a, b):
        """Whether every path from the entry to ``b`` passes ``a`` (a block dominates itself)."""
        if not self.blocks:
            return False
        self.idom(0)
        if b not in self._idom:
            return False
        while True:
            if a == b:
                return True
            up = self._idom[b]
            if up == b:
                return False
            b = up

    def ipdom(self, b):
        """The immediate post-dominator of ``b`` over normal edges: the first block every
        normal path from ``b`` to an exit (return, raise, the end of the code) passes. None when
        the exit itself is next, or when ``b`` never reaches an exit (an endless loop)."""
        if self._ipdom is None:
            self._ipdom = self._post_dominators()
        parent = self._ipdom.get(b)
        return None if parent is None or parent == _EXIT else parent

    def post_dominates(self, a, b):
        """Whether every normal path from ``b`` to an exit passes ``a``."""
        self.ipdom(b)
        if b not in self._ipdom:
            return False
        while b != _EXIT:
            if a == b:
                return True
            b = self._ipdom[b]
        return False

    def _post_dominators(self):
        blocks = self.blocks

        def preds_in_reverse(b):  # successors of b in the reversed graph
            if b == _EXIT:
                return [x.id for x in blocks if x.to_end or not x.normal_succs()]
            return blocks[b].normal_preds()

        def succs_in_reverse(b):  # predecessors of b in the reversed graph
            if b == _EXIT:
                return []
            block = blocks[b]
            found = block.normal_succs()
            if block.to_end or not found:
                found = found + [_EXIT]
            return found

        order = _reverse_postorder(_EXIT, preds_in_reverse) if blocks else []
        return _dominators(order, succs_in_reverse)

    # -- loops ------------------------------------------------------------------------------
    @property
    def loops(self):
        """[Loop], one per header, outer loops before the loops nested in them."""
        if self._loops is None:
            self._find_loops()
        return self._loops

    @property
    def irreducible(self):
        """[(source, target)] retreating normal edges whose target does not dominate their
        source: cycles with two entries. Generated code can make them, and so can 3.8/3.9's
        jump threading: an ``if`` before a ``while True:`` whose false branch jumps to the
        loop's back-edge jump is sent straight into the loop's last block."""
        if self._irreducible is None:
            self._find_loops()
        return self._irreducible

    def loop_of(self, header):
        for loop in self.loops:
            if loop.header == header:
                return loop
        return None

    def _find_loops(self):
        back = {}
        irreducible = []
        order = self.reverse_postorder()
        position = dict((b, k) for k, b in enumerate(order))
        for b in order:
            for e in self.blocks[b].succs:
                if e.kind == EXCEPTION:
                    continue
                h = e.block
                if self.dominates(h, b):
                    back.setdefault(h, []).append(b)
                elif position.get(h, -1) <= position[b]:
                    if _on_a_cycle(self, h, b):
                        irreducible.append((b, h))
        loops = []
        for h in sorted(back, key=position.get):
            body = set([h])
            todo = [s for s in back[h] if s != h]
            body.update(todo)
            while todo:
                b = todo.pop()
                for e in self.blocks[b].preds:
                    p = e.block
                    if p not in body and p in position:
                        body.add(p)
                        todo.append(p)
            loops.append(Loop(h, sorted(back[h]), frozenset(body)))
        for loop in loops:
            best = None
            for other in loops:
                if other is not loop and loop.header in other.body and \
                        loop.body <= other.body and (best is None or
                                                     len(other.body) < len(best.body)):
                    best = other
            loop.parent = best.header if best is not None else None
        self._loops = loops
        self._irreducible = irreducible

    # -- copies -----------------------------------------------------------------------------
    @property
    def copies(self):
        """Groups (sorted lists of block ids, two or more) of interchangeable blocks: the same
        instructions (line numbers aside) and, position by position, interchangeable
        successors and handler. CPython makes such blocks on purpose: 3.12+ copies exit blocks
        without a line number into each predecessor and inlines small exits into the jumps to
        them; 3.8-3.11 copy ``finally`` bodies and ``return`` exits. A group may also be code
        written twice: the structurer decides what to merge (a written ``return`` is a
        statement of its own)."""
        if self._copies is None:
            self._copies = self._find_copies()
        return self._copies

    def copy_class(self, b):
        """The smallest block id interchangeable with ``b`` (``b`` itself when it has no copy)."""
        for group in self.copies:
            if b in group:
                return group[0]
        return b

    def _find_copies(self):
        blocks = self.blocks
        if not blocks:
            return []
        signature = {}
        cls = []
        for block in blocks:
            key = (self._content(block), block.to_end, tuple(e.kind for e in block.succs))
            cls.append(signature.setdefault(key, len(signature)))
        count = len(signature)
        while True:
            refined = {}
            new = []
            for block in blocks:
                key = (cls[block.id], tuple(cls[e.block] for e in block.succs))
                new.append(refined.setdefault(key, len(refined)))
            cls = new
            if len(refined) == count:
                break
            count = len(refined)
        groups = {}
        for block in blocks:
            groups.setdefault(cls[block.id], []).append(block.id)
        return sorted(g for g in groups.values() if len(g) > 1)

    def _content(self, block):
        items = []
        for ins in self.instrs[block.start:block.end]:
            value = ins.argval
            if hasattr(value, "co_code"):
                value = ("code", id(value))  # one code object per def: never interchangeable
            elif jump_target(ins) is not None:
                value = None  # compared through the successors
            else:
                value = (type(value).__name__, repr(value))
            items.append((ins.op, value))
        return tuple(items)


_EXIT = -1  # the virtual exit block of the post-dominator tree


def _reverse_postorder(root, succs):
    """Iterative depth-first walk from ``root``; reverse postorder of what it reaches."""
    if root is None:
        return []
    seen = set([root])
    post = []
    stack = [(root, iter(succs(root)))]
    while stack:
        node, it = stack[-1]
        for nxt in it:
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(succs(nxt))))
                break
        else:
            stack.pop()
            post.append(node)
    post.reverse()
    return post


def _dominators(order, preds):
    """{node: immediate dominator} (the root maps to itself) by Cooper, Harvey and Kennedy's
    iterative algorithm over a reverse postorder ``order`` whose first node is the root."""
    if not order:
        return {}
    position = dict((node, k) for k, node in enumerate(order))
    idom = {order[0]: order[0]}
    changed = True
    while changed:
        changed = False
        for node in order[1:]:
            new = None
            for p in preds(node):
                if p not in idom:
                    continue
                if new is None:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while position[a] > position[b]:
                        a = idom[a]
                    while position[b] > position[a]:
                        b = idom[b]
                new = a
            if new is not None and idom.get(node) != new:
                idom[node] = new
                changed = True
    return idom


def _on_a_cycle(graph, target, source):
    """Whether ``target`` reaches ``source`` over normal edges (so source -> target closes a
    cycle)."""
    seen = set([target])
    todo = [target]
    while todo:
        b = todo.pop()
        if b == source:
            return True
        for s in graph.blocks[b].normal_succs():
            if s not in seen:
                seen.add(s)
                todo.append(s)
    return False


def build(instrs, entries):
    """The CFG of a normalized instruction list and its exception entries."""
    return CFG(instrs, entries)


def from_code(code):
    """The CFG of a code object (normalized on the running interpreter)."""
    instrs, offset_to_index = normalize(code)
    return CFG(instrs, exception_entries(code, offset_to_index))
