"""ACCESS-8 broken: the sandbox holds a path to the live roots by comparing spellings as strings, so a
root ``/workspace/pub`` also admits ``/workspace/public/...`` (a sibling whose name starts with the
root's).

Cell: a path outside every root whose spelling starts with a root's (a look-alike sibling directory);
paths under a root, and paths that share no prefix with one, are decided as before, for every file
and directory tool and every sandbox operation. Sentence (seed ¶42; RULES.md ACCESS-8): "File and
directory tools consume the same host policy" as ``currentAccess()``, whose roots name directories.
"""

from __future__ import annotations

from dataclasses import replace

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Components, Sandbox, SandboxAccess, SandboxOp, SandboxResult
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-8"


class PrefixRootsSandbox(Sandbox):
    def _decide(self, op: SandboxOp, access: SandboxAccess) -> tuple[SandboxResult | None, dict[str, Components]]:
        spelled = [p for p in (op.path, op.dest) if isinstance(p, str)]
        if spelled and all(any(p.startswith(root) for root in access.roots) for p in spelled):
            access = replace(access, roots=(self.guest_root,))
        return super()._decide(op, access)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=PrefixRootsSandbox)
