"""Helpers for writing mutants: an adapter over a host subclass, or over rewritten answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host

F = TypeVar("F", bound=Callable[..., Any])


def plumbing(method: F) -> F:
    """Mark an override that only re-classes what the reference host builds (a session, a sandbox):
    it changes no behaviour itself, so it is not a change tests/kit/suites/mutant_reach.py traces.
    What it re-classes to is: that class's own overrides are."""
    method.__toolconformance_plumbing__ = True  # type: ignore[attr-defined]
    return method


class AnswerMutant(ReferenceHostAdapter):
    """Override one contract method and rewrite the reference host's answer."""


class PayloadMutant(AnswerMutant):
    """Rewrite each provider payload entry of a registered tool (``payload_entry``); the rest of the
    composition answer stays the reference host's."""

    def payload_entry(self, entry: dict[str, Any], registration: Any) -> dict[str, Any]:
        return entry

    def compose(self, session: str) -> dict[str, Any]:
        answer = super().compose(session)
        if "error" in answer:
            return answer
        registry = self.host.registry
        tools = []
        for entry in answer["payload"]["tools"]:
            registration = registry.get(entry["name"])
            tools.append(dict(entry) if registration is None else self.payload_entry(entry, registration))
        answer["payload"] = {**answer["payload"], "tools": tools}
        return answer


def host_mutant(host_class: type[Host], **kwargs: Any) -> ReferenceHostAdapter:
    """An adapter over a broken subclass of the reference host."""
    return ReferenceHostAdapter(host_factory=lambda: host_class(**kwargs), **{})
