"""What the explorer shows, independent of how the dump folder spells it.

The page template reads only these classes; ``load.py`` fills them from ``index.json`` (and from
file names when the index lacks something). Keeping the two apart means a change in the dump
schema is one edit in the loader, never in the page.
"""

from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class CodeBlock:
    """One piece of source shown in the page, usually a file of the dump folder."""

    title: str
    anchor: str                      # element id in the page
    text: str
    path: Optional[str] = None       # relative to the dump folder, for the "open file" link
    kind: str = "code"               # guards | transformed | resume | graph | kernel | source | ...
    note: Optional[str] = None       # one line shown next to the title (e.g. stage name)
    aliases: List[str] = field(default_factory=list)  # other names that link here
    see_also: List[tuple] = field(default_factory=list)  # (text, anchor) links in the title bar
    language: str = "python"         # "text" is shown escaped, without highlighting
    targets: List[str] = field(default_factory=list)  # compile keys this block's code ran as
    # side by side view (language "side_by_side"): (line of code, user's line number or None,
    # that line of the user's source) per line
    rows: List[tuple] = field(default_factory=list)


@dataclass
class Frame:
    """One frame of a user's call stack."""

    filename: str
    lineno: Optional[int]
    name: str = ""
    line: str = ""                   # the source text of that line, when it could be read


@dataclass
class GraphBreak:
    reason: str
    detail: str = ""                 # torch's full message (hints, traceback): shown folded
    frame: Optional[Frame] = None    # the user's line where the break happened (the
    #                                  innermost frame of their code when torch broke inside
    #                                  its own, e.g. in optimizer.step())
    step: Optional[str] = None       # torch's generic step ("... trace CALL: a function call")
    stack: List[Frame] = field(default_factory=list)
    compile_id: Optional[str] = None
    context: List[Frame] = field(default_factory=list)  # neighbouring lines, for the excerpt


@dataclass
class Graph:
    """A compiled subgraph (``__compiled_fn_<k>``): its stages and Inductor's output for it."""

    name: str
    anchor: str
    stages: List[CodeBlock] = field(default_factory=list)
    kernels: List[CodeBlock] = field(default_factory=list)


@dataclass
class Compile:
    """One entry in Dynamo's cache for a frame: a compile id such as ``0/1``."""

    compile_id: str
    anchor: str
    function: str
    key: str = ""                    # index.json key, with the subdump prefix ("rank_0/0/1")
    filename: str = ""
    firstlineno: Optional[int] = None
    stack: List[Frame] = field(default_factory=list)
    recompile_reasons: List[str] = field(default_factory=list)
    graph_breaks: List[GraphBreak] = field(default_factory=list)
    guards: Optional[CodeBlock] = None
    transformed: Optional[CodeBlock] = None
    side_by_side: Optional[CodeBlock] = None  # the transformed code next to the user's lines
    full_code: Optional[CodeBlock] = None
    resume: List[CodeBlock] = field(default_factory=list)
    graphs: List[Graph] = field(default_factory=list)
    other: List[CodeBlock] = field(default_factory=list)
    badges: List[str] = field(default_factory=list)   # short warnings, e.g. "not verified"
    guard_failures: List[str] = field(default_factory=list)  # why later calls missed this entry
    # A loop that recompiles N times has N reasons per compile (one per older cache entry):
    # the page shows the first few and keeps the full lists in folded blocks, or a run with
    # hundreds of compiles would carry a quadratic number of reasons in its visible part.
    all_reasons: Optional[CodeBlock] = None
    all_failures: Optional[CodeBlock] = None
    metrics: dict = field(default_factory=dict)
    process: str = ""                # which process wrote it (links resolve within one process)
    is_resume: bool = False
    resume_of: Optional[str] = None
    resume_of_anchor: Optional[str] = None  # the section of the function it continues
    resumes_at_line: Optional[int] = None   # a resume function: the line it continues from
    # The one guard count shown: the checks in the dumped guard function (torch's tree, leaf
    # by leaf); `guard_note` explains torch's smaller guard_count metric.
    guard_checks: Optional[int] = None
    guard_note: Optional[str] = None
    function_source: Optional[CodeBlock] = None  # the user's source, on a function's 1st compile


@dataclass
class Function:
    """A user function that Dynamo compiled at least once (all its cache entries)."""

    name: str
    anchor: str
    filename: str = ""
    firstlineno: Optional[int] = None
    compiles: List[Compile] = field(default_factory=list)
    resume_of: Optional[str] = None  # for Dynamo's resume functions: the function they continue
    resumes_at_line: Optional[int] = None  # ... and the line they continue from
    source: Optional[CodeBlock] = None  # the user's function as written, read from its file

    @property
    def recompilations(self):
        """Compiles after the first of this code object (a Function is one code object: two
        resume functions that share a name are two Functions, never recompilations)."""
        return max(0, len(self.compiles) - 1)

    @property
    def graph_breaks(self):
        return sum(len(c.graph_breaks) for c in self.compiles)


@dataclass
class Dump:
    """A whole dump folder, ready to render."""

    root: str
    functions: List[Function] = field(default_factory=list)
    unattached: List[CodeBlock] = field(default_factory=list)  # files no compile claims
    warnings: List[str] = field(default_factory=list)          # problems met while loading
    title: str = "dynalens report"

    @property
    def compiles(self):
        return [c for f in self.functions for c in f.compiles]

    @property
    def graph_breaks(self):
        return [b for c in self.compiles for b in c.graph_breaks]

    @property
    def recompilations(self):
        return [c for c in self.compiles if c.recompile_reasons]

    def code_blocks(self):
        """Every ``(block, compile or None)`` in page order; the compile decides link scope."""
        for comp in self.compiles:
            if comp.function_source is not None:
                yield comp.function_source, comp
            for block in (comp.all_reasons, comp.all_failures, comp.guards, comp.transformed,
                          comp.side_by_side, comp.full_code):
                if block is not None:
                    yield block, comp
            for block in comp.resume:
                yield block, comp
            for graph in comp.graphs:
                for block in graph.stages:
                    yield block, comp
                for block in graph.kernels:
                    yield block, comp
            for block in comp.other:
                yield block, comp
        for block in self.unattached:
            yield block, None
