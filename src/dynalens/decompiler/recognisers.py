"""The recognisers, registered in one place and one order (see ``registry.py``).

Each block below names what one recogniser family handles: the opcodes it reads (its handler
wins over the walker core's ``op_*`` method; where it refines another family's handler it calls
that one itself) and the functions that code below the family calls through ``ENTRY``.
Importing this module (render.py does) fills the registry.
"""

from . import annotate, legacy_structure
from .inline_comprehensions import InlineComprehensionMixin
from .registry import ENTRY, OPCODES, chain

# -- stores: the steps that may take over a store before the walker core makes it a statement
ENTRY.assign = chain(annotate.assign_annotate_function,
                     InlineComprehensionMixin._assign)

# -- 3.8/3.9 loops (legacy_structure.py): the else a range's last compound statement lost
ENTRY.compound_end = legacy_structure.compound_end
