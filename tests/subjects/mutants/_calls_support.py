"""Plumbing for the call/registration mutants: swap in a broken Session or RegistrationContext.

The reference host builds sessions and registration contexts itself, so a mutant host subclass
re-classes each new one to a broken subclass. Nothing here patches a module global: mutants run
in the same process as the reference host's own checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.composition import Composition, compose_session
from reference_host.registry import Registration, RegistrationContext
from reference_host.session import CallOutcome, Session, SessionSpec
from tests.subjects.mutants.base import plumbing


def session_mutant(
    session_class: type[Session], on_open: Callable[[Host, Session], None] | None = None
) -> ReferenceHostAdapter:
    """An adapter over a host whose sessions (opened ones, not delegated children) are ``session_class``."""

    class MutantHost(Host):
        @plumbing
        def open_session(self, spec: Mapping[str, Any] | SessionSpec) -> Session:
            session = super().open_session(spec)
            session.__class__ = session_class
            return session

    if on_open is None:
        return ReferenceHostAdapter(host_factory=MutantHost)
    hook = on_open

    class HookedHost(MutantHost):
        def open_session(self, spec: Mapping[str, Any] | SessionSpec) -> Session:
            session = super().open_session(spec)
            hook(self, session)
            return session

    return ReferenceHostAdapter(host_factory=HookedHost)


class RegistrationSeenSession(Session):
    """A session that sees each registration through :meth:`seen` (what a mutant changes), alike when
    it looks a tool up to call it and when it composes."""

    def seen(self, reg: Registration) -> Registration:
        return reg

    def _lookup(self, name: str) -> Registration | None:
        reg = super()._lookup(name)
        return None if reg is None else self.seen(reg)

    def compose(self) -> Composition:
        return compose_session([self.seen(reg) for reg in self.host.registry], self.view())


class OutcomeRewritingSession(Session):
    """A session whose mutant changes what a handler's run gave once the reference host has made it:
    override :meth:`rewritten` (the outcome, the registration, the params the handler held and the
    journal entry)."""

    def rewritten(
        self, outcome: CallOutcome, reg: Registration, params: dict[str, Any], journal: dict[str, Any]
    ) -> CallOutcome:
        return outcome

    def _run_handler(
        self,
        reg: Registration,
        call_id: str,
        params: dict[str, Any],
        journal: dict[str, Any],
        hooks_ran: list[str],
        cwd: str | None,
    ) -> CallOutcome:
        outcome = super()._run_handler(reg, call_id, params, journal, hooks_ran, cwd)
        return self.rewritten(outcome, reg, params, journal)


class _Wrapped:
    """A plugin whose ``register(ctx)`` gets the context re-classed to a broken subclass; the host
    reads its name and ``register`` as it reads the plugin's own (Host.install_plugin)."""

    def __init__(self, inner: Any, context_class: type[RegistrationContext]) -> None:
        self.inner = inner
        self.context_class = context_class
        self.__name__ = getattr(inner, "__name__", None) or type(inner).__name__

    def register(self, ctx: RegistrationContext) -> Any:
        ctx.__class__ = self.context_class
        return self.inner.register(ctx)


def context_mutant(context_class: type[RegistrationContext]) -> ReferenceHostAdapter:
    """An adapter over a host whose registration contexts are ``context_class``."""

    class MutantHost(Host):
        @plumbing
        def install_plugin(
            self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None
        ) -> Any:
            if callable(getattr(plugin, "register", None)):
                plugin = _Wrapped(plugin, context_class)
            return super().install_plugin(plugin, manifest=manifest, name=name)

    return ReferenceHostAdapter(host_factory=MutantHost)
