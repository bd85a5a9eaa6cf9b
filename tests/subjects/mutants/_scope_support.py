"""Plumbing for the scope mutants: a session that reads each registration's scope its own (wrong) way.

The reference host decides scope in two places, composition and the call's lookup; a mutant that
misreads a scope must misread it in both, or the model would be offered a tool it cannot call (or
the other way round) and the mutant would break a second rule by accident.
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import READ_ONLY_CHILD_HOST_TOOLS
from reference_host.composition import Composition, compose_session, in_scope
from reference_host.registry import CORE_PLUGIN, Registration
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant


class RescopedSession(Session):
    """A session that sees every registration through :meth:`rescope`, in composition and at lookup."""

    def rescope(self, reg: Registration) -> Registration:
        """The registration with the scope this host wrongly reads for this session."""
        return reg

    def compose(self) -> Composition:
        return compose_session([self.rescope(reg) for reg in self.host.registry], self.view())

    def _lookup(self, name: str) -> Registration | None:
        reg = self.host.registry.get(name)
        if reg is None or not in_scope(self.rescope(reg), self.view()):
            return None
        if self.restrictions.delegated_read_only and not (
            reg.read_only or (reg.plugin == CORE_PLUGIN and name in READ_ONLY_CHILD_HOST_TOOLS)
        ):
            return None  # RO-5 as the reference host: only the scope is misread
        return reg


def rescoped(session_class: type[RescopedSession]) -> ReferenceHostAdapter:
    """An adapter over a host whose sessions and their delegated children are ``session_class``."""
    return sessions_mutant(session_class)
