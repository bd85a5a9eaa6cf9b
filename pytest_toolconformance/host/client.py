"""A typed, checking client over a :class:`~pytest_toolconformance.host.contract.HostAdapter`.

Suites talk to a host only through this client, which talks only through the adapter contract.
An answer that is not of the contract's shape raises :class:`HostProtocolError` (the host's bug,
reported as *errored*); a rule that does not hold raises a
:class:`~pytest_toolconformance.findings.Finding` whose subject is the host.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pytest_toolconformance.findings import Finding, shorten
from pytest_toolconformance.host.contract import JSON


class HostProtocolError(Exception):
    """The host answered something the adapter contract does not allow."""


def check(condition: bool, rule: str, expected: str, actual: Any, scenario: Any = None) -> None:
    """Raise a :class:`Finding` of the host unless ``condition``; ``scenario`` is its smallest reproduction."""
    if not condition:
        raise Finding(rule, expected, actual, subject="host", reproduction=scenario)


def _answer(method: str, value: Any) -> Any:
    if not isinstance(value, Mapping):
        raise HostProtocolError(f"host answered {method}() with {type(value).__name__}, not an object: {shorten(value, 800, verbatim=True)}")
    return value


class HostError(Exception):
    """The host refused input with a structured error (kind, message, rule)."""

    def __init__(self, method: str, err: Mapping[str, Any]) -> None:
        self.kind = err.get("kind")
        self.rule = err.get("rule")
        self.message = err.get("message")
        self.error = dict(err)
        super().__init__(f"{method}: {self.kind}: {self.message}")


class Session:
    """One session of the host under test."""

    def __init__(self, client: HostClient, session_id: str, spec: JSON) -> None:
        self.client = client
        self.id = session_id
        self.spec = spec

    def compose(self) -> JSON:
        return self.client._ok("compose", self.client.adapter.compose(self.id))

    def call(self, tool: str, arguments: Any = None, call_id: str | None = None) -> JSON:
        return self.client._ok("call", self.client.adapter.call(self.id, tool, {} if arguments is None else arguments, call_id))

    def queue_call(self, tool: str, arguments: Any) -> str:
        return str(self.client._ok("queue_call", self.client.adapter.queue_call(self.id, tool, arguments))["ticket"])

    def run_queued(self) -> list[JSON]:
        return list(self.client._ok("run_queued", self.client.adapter.run_queued(self.id))["outcomes"])

    def access(self) -> JSON:
        return self.client._ok("current_access", self.client.adapter.current_access(self.id))

    def identity(self) -> JSON:
        return self.client._ok("current_identity", self.client.adapter.current_identity(self.id))

    def delegate(self, *, read_only: bool = True, requested: JSON | None = None) -> Session:
        answer = self.client._ok("delegate", self.client.adapter.delegate(self.id, {"readOnly": read_only, "requested": requested or {}}))
        return Session(self.client, str(answer["session"]), {"parent": self.id})

    def sandbox(self, op: JSON) -> JSON:
        return self.client._raw("sandbox", self.client.adapter.sandbox(self.id, op))

    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.compose()["tools"]]

    def catalog_names(self) -> list[str]:
        return [t["name"] for t in self.compose()["catalog"]]


class HostClient:
    """The host under test, as the suites see it."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self._info: JSON | None = None

    @property
    def info(self) -> JSON:
        if self._info is None:
            self._info = _answer("info", self.adapter.info())
        return self._info

    @property
    def capabilities(self) -> frozenset[str]:
        return frozenset(self.info.get("capabilities") or ())

    def require(self, *capabilities: str) -> None:
        """Skip the calling test, with the reason, unless the host declares every capability."""
        missing = [c for c in capabilities if c not in self.capabilities]
        if missing:
            pytest.skip(f"host {self.info.get('name')!r} does not declare capability {', '.join(missing)}")

    def _raw(self, method: str, value: Any) -> JSON:
        return dict(_answer(method, value))

    def _ok(self, method: str, value: Any) -> JSON:
        answer = self._raw(method, value)
        if "error" in answer:
            raise HostError(method, answer["error"])
        return answer

    def reset(self) -> None:
        self.adapter.reset()

    def install(self, plugin: JSON) -> JSON:
        """Install a scripted plugin; returns the report, or ``{"error": ...}`` when refused whole."""
        return self._raw("install_plugin", self.adapter.install_plugin(plugin))

    def install_ok(self, plugin: JSON) -> JSON:
        return self._ok("install_plugin", self.adapter.install_plugin(plugin))

    def set_policy(self, account: str, **changes: Any) -> JSON:
        return self._ok("set_policy", self.adapter.set_policy(account, changes))

    def open(self, **spec: Any) -> Session:
        """Open a session; keyword names are the session spec's fields (``identity``, ``mode`` ...)."""
        spec.setdefault("identity", {"userId": "user-1"})
        answer = self._ok("open_session", self.adapter.open_session(spec))
        return Session(self, str(answer["session"]), spec)

    def open_raw(self, spec: JSON) -> JSON:
        return self._raw("open_session", self.adapter.open_session(spec))
