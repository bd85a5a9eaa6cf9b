"""The sandbox: guest paths, the plan-file allowance and link-safe file access.

Rules: PLANFILE-2 (only the exact plan file and its create-only parents), PLANFILE-3 (no
remove, rename, copy, lifecycle or Desktop on a read-only turn), PLANFILE-4 (the paired-computer
executor writes only the plan file, narrowed to its parent), PLANFILE-5 (a child never inherits
the plan file), ACCESS-5/8 (access is passed in fresh for every operation and confines it).

One module per section:

- :mod:`.paths` — guest paths and normalization (canonical spellings only, nothing rewritten);
- :mod:`.policy` — the access, the operation and what a turn admits (no filesystem);
- :mod:`.tree` — filesystem safety: the link-safe fd walk; writes by exclusive create + rename;
- :mod:`.operations` — :class:`Sandbox`, policy over the tree, and the result semantics;
- :mod:`.queue` — the mutation queue (ACCESS-6);
- :mod:`.file_tools` — the core file tools over one sandbox (ACCESS-5..8).
"""

from .file_tools import AccessProvider, FileTools
from .operations import Sandbox
from .paths import GUEST_ROOT, MAX_COMPONENT_BYTES, MAX_PATH_BYTES, Components
from .policy import (
    EXECUTORS,
    KINDS,
    MUTATING_KINDS,
    READ_KINDS,
    UNGRANTED_KINDS,
    SandboxAccess,
    SandboxOp,
    SandboxResult,
    child_access,
)
from .queue import MutationQueue, Ticket, ToolResult
from .tree import EntryInfo, LinkSafeTree, Rewrite, SandboxRefusal

__all__ = [
    "EXECUTORS",
    "GUEST_ROOT",
    "KINDS",
    "MAX_COMPONENT_BYTES",
    "MAX_PATH_BYTES",
    "MUTATING_KINDS",
    "READ_KINDS",
    "UNGRANTED_KINDS",
    "AccessProvider",
    "Components",
    "EntryInfo",
    "FileTools",
    "LinkSafeTree",
    "MutationQueue",
    "Rewrite",
    "Sandbox",
    "SandboxAccess",
    "SandboxOp",
    "SandboxRefusal",
    "SandboxResult",
    "Ticket",
    "ToolResult",
    "child_access",
]
