"""ACCESS-4 broken in the cell "a child delegated after the account gained live authority its parent's
turn never had".

Sentence (seed ¶42): "currentIdentity() also removes captured admin/owner privilege when live host
authority is revoked; it never promotes a turn." RULES.md ACCESS-4: "... and never promotes."
Reading (docs/readings.md, ACCESS-2 row): a child is judged by ACCESS-4's never-promote half: no admin
or owner beyond its parent's identity and the live authority.

Cell: a session opened with ``identity.admin``/``owner`` false; the account is then made admin (or
owner) in the live policy; the session delegates a child (read-only or not, any depth).

What the host does: a delegated child captures its identity's admin/owner from the live policy at the
moment of delegation (as if it were a fresh login) instead of inheriting its parent's captured
identity. A later revocation still drops it (the live AND stays); top-level sessions, access
descriptors and everything else are the reference host's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-4"


class ChildIdentityFromLiveSession(Session):
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        child = super().delegate(read_only=read_only, requested=requested)
        live = self.host.policies.evaluate(self.account)
        identity = replace(child.spec.identity, admin=live.admin, owner=live.owner)
        child.spec = replace(child.spec, identity=identity)
        return child


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ChildIdentityFromLiveSession)
