"""Witnesses of the broken hosts in tests/subjects/mutants, one module per group of rule families:
each shows through the adapter contract alone that the reference host does what a rule's sentence says
and the broken host does not. What several witnesses do the same way is here; the fixture ``hosts`` is
in conftest.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import plugin

#: ``hosts(mutant)`` gives (reference host, broken host).
Pair = Callable[[str], tuple[ReferenceHostAdapter, ReferenceHostAdapter]]


def session_of(host: ReferenceHostAdapter, spec: dict[str, Any]) -> str:
    answer = host.open_session(spec)
    assert "session" in answer, answer
    return answer["session"]


def tool_names(host: ReferenceHostAdapter, session: str) -> set[str]:
    return {entry["name"] for entry in host.compose(session)["tools"]}


def install(host: ReferenceHostAdapter, *tools: dict[str, Any], name: str = "witness") -> None:
    report = host.install_plugin(plugin(name, list(tools)))
    assert "error" not in report, report


def text_of(answer: dict[str, Any]) -> str:
    return "".join(item.get("text", "") for item in answer["content"])


def has_reason(parameters: dict[str, Any]) -> bool:
    """Whether an advertised schema has a ``reason`` property."""
    return "reason" in (parameters.get("properties") or {})


def optional_reason(parameters: dict[str, Any]) -> bool:
    """Whether an advertised schema has ``reason`` as an optional string (REASON-1's form)."""
    reason = (parameters.get("properties") or {}).get("reason")
    return (
        isinstance(reason, dict) and reason.get("type") == "string" and "reason" not in parameters.get("required", [])
    )


def installed(
    host: ReferenceHostAdapter, *tools: dict[str, Any], name: str = "witness", manifest: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Install a scripted plugin of ``tools`` (with ``manifest``); its install report, which has no error."""
    report = host.install_plugin(plugin(name, list(tools), manifest=manifest))
    assert "error" not in report, report
    return report


def names_of(entries: list[dict[str, Any]]) -> set[str]:
    return {entry["name"] for entry in entries}


def entry_named(entries: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(entry for entry in entries if entry["name"] == name)


def ran_and_refused_at(outcome: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether the handler ran, and the stage that refused the call (None when none did)."""
    return outcome["handlerRan"], (outcome["refusal"] or {}).get("stage")
