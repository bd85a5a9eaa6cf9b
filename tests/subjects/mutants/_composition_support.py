"""Plumbing for the composition mutants (CAP, REASON, RO, PLAN, SCOPE, DIAG, COST).

Composition answers hand out entries shared between sessions (read-only dicts), so a mutant that
rewrites an answer builds new lists and dicts instead of editing them. Registry mutants replace a
registration with a changed copy (``dataclasses.replace``). Nothing here patches a module global:
mutants run in the same process as the reference host's own checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.registry import Registration
from reference_host.session import Session
from tests.subjects.mutants._calls_support import session_mutant
from tests.subjects.mutants.base import AnswerMutant, plumbing

Entry = dict[str, Any]


class RewriteTools(AnswerMutant):
    """Rewrites each advertised tool (in ``tools`` and ``payload.tools``; only in the provider payload
    where ``payload_only``) through :meth:`rewrite`, in the sessions :meth:`rewrites` picks."""

    payload_only = False

    def rewrites(self, session: str) -> bool:
        """Whether ``session``'s answer is rewritten at all (every session's unless a mutant says)."""
        return True

    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        return entry

    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer or not self.rewrites(session):
            return answer
        registry = self.host.registry

        def fix(entry: Mapping[str, Any]) -> Entry:
            reg = registry.get(entry["name"])
            return self.rewrite(reg, dict(entry)) if reg is not None else dict(entry)

        if not self.payload_only:
            answer["tools"] = [fix(e) for e in answer["tools"]]
        answer["payload"] = {**answer["payload"], "tools": [fix(e) for e in answer["payload"]["tools"]]}
        return answer


def rewrite_registry(host: Host, change: Callable[[Registration], Registration | None]) -> None:
    """Replace each registration for which ``change`` returns a changed copy."""
    tools = host.registry._tools
    for name, reg in list(tools.items()):
        changed = change(reg)
        if changed is not None:
            tools[name] = changed


def registry_mutant(after_install: Callable[[Host, Any], None]) -> ReferenceHostAdapter:
    """An adapter over a host that rewrites its registry after every install."""

    class MutantHost(Host):
        def install_plugin(
            self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None
        ) -> Any:
            report = super().install_plugin(plugin, manifest=manifest, name=name)
            after_install(self, report)
            return report

    return ReferenceHostAdapter(host_factory=MutantHost)


def sessions_mutant(
    session_class: type[Session], on_open: Callable[[Host, Session], None] | None = None
) -> ReferenceHostAdapter:
    """An adapter over a host whose sessions, and their delegated children, are ``session_class``."""

    class MutantSession(session_class):  # type: ignore[misc, valid-type]
        @plumbing
        def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
            child = super().delegate(read_only=read_only, requested=requested)
            child.__class__ = MutantSession
            return child

    return session_mutant(MutantSession, on_open)


def proceed(session: Session, reg: Registration, args: Any) -> tuple[dict[str, Any], list[str]]:
    """What ``Session._gate`` hands the handler when every stage lets a call through."""
    params = dict(args) if isinstance(args, Mapping) else {}
    if not reg.external:
        params.pop("reason", None)
    return params, []


__all__ = ["RewriteTools", "proceed", "registry_mutant", "replace", "rewrite_registry", "sessions_mutant"]
