"""A typed, checking client over a :class:`~pytest_toolconformance.host.contract.HostAdapter`.

Suites talk to a host only through this client, which talks only through the adapter contract.
An answer that is not of the contract's shape raises :class:`HostProtocolError` (the host's bug,
reported as *errored*); a refusal of input raises :class:`HostRefusal` where the caller wants an
answer; a rule that does not hold raises a :class:`~pytest_toolconformance.findings.Finding` whose
subject is the host. A method the host answers
``unsupported`` without declaring a capability that covers it skips the test, naming the capability.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any, Literal

import pytest

from pytest_toolconformance.findings import Finding, bound_rule, shorten
from pytest_toolconformance.host.contract import BY_NAME, JSON
from pytest_toolconformance.host.errors import HostProtocolError, HostRefusal

#: The client of the running check (the last one built: the ``toolconformance_host`` fixture builds one
#: per check), for the re-examiners below.
_ACTIVE: ContextVar[HostClient | None] = ContextVar("toolconformance_active_client", default=None)
#: What may look at a finding before it stands, given the running check's client and the finding's
#: rule: each may skip the check as *blocked by* another rule that the host breaks underneath it (the
#: host suites register one: a host that gets origin wrong meets every check that registers tools).
Reexaminer = Callable[["HostClient", str], None]
_REEXAMINERS: list[Reexaminer] = []
_REEXAMINING: ContextVar[bool] = ContextVar("toolconformance_reexamining", default=False)


def reexamine_findings_with(reexaminer: Reexaminer) -> None:
    """Have ``reexaminer`` look at every host finding of a running check before it is raised."""
    if reexaminer not in _REEXAMINERS:
        _REEXAMINERS.append(reexaminer)


def check(condition: bool, expected: str, actual: Any, scenario: Any = None, *, rule: str | None = None) -> None:
    """Raise a :class:`Finding` of the host unless ``condition``; ``scenario`` is its smallest reproduction.

    The finding's rule is the running test's (its ``toolconformance`` marker, bound once), or ``rule``
    where one test checks several (a scenario's steps). Before it is raised, the registered
    re-examiners may find the check blocked by another rule (a conforming host never pays for them)."""
    if condition:
        return
    finding_rule = rule or bound_rule()
    client = _ACTIVE.get()
    if client is not None and not _REEXAMINING.get():
        token = _REEXAMINING.set(True)
        try:
            for reexaminer in _REEXAMINERS:
                reexaminer(client, finding_rule)
        finally:
            _REEXAMINING.reset(token)
    raise Finding(finding_rule, expected, actual, subject="host", reproduction=scenario)


def _answer(method: str, value: Any) -> Any:
    if not isinstance(value, Mapping):
        raise HostProtocolError(
            f"host answered {method}() with {type(value).__name__}, not an object: {shorten(value, 800, verbatim=True)}"
        )
    return value


class Session:
    """One session of the host under test: the session-scoped contract methods with its id."""

    def __init__(self, client: HostClient, session_id: str, spec: JSON) -> None:
        self.client = client
        self.id = session_id
        self.spec = spec

    def ask(self, method: str, *args: Any, refusal: Literal["raise", "return"] = "raise") -> JSON:
        """:meth:`HostClient.ask` for this session."""
        return self.client.ask(method, self.id, *args, refusal=refusal)

    def compose(self) -> JSON:
        return self.ask("compose")

    def call(self, tool: str, arguments: Any = None, call_id: str | None = None) -> JSON:
        return self.ask("call", tool, {} if arguments is None else arguments, call_id)

    def queue_call(self, tool: str, arguments: Any) -> str:
        return str(self.ask("queue_call", tool, arguments)["ticket"])

    def run_queued(self) -> list[JSON]:
        return list(self.ask("run_queued")["outcomes"])

    def access(self) -> JSON:
        return self.ask("current_access")

    def identity(self) -> JSON:
        return self.ask("current_identity")

    def delegate(self, *, read_only: bool = True, requested: JSON | None = None) -> Session:
        answer = self.ask("delegate", {"readOnly": read_only, "requested": requested or {}})
        return Session(self.client, str(answer["session"]), {"parent": self.id})

    def sandbox(self, op: JSON) -> JSON:
        return self.ask("sandbox", op, refusal="return")

    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.compose()["tools"]]

    def catalog_names(self) -> list[str]:
        return [t["name"] for t in self.compose()["catalog"]]


class HostClient:
    """The host under test, as the suites see it."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self._info: JSON | None = None
        _ACTIVE.set(self)

    @property
    def info(self) -> JSON:
        if self._info is None:
            self._info = _answer("info", self.adapter.info())
        return self._info

    @property
    def capabilities(self) -> frozenset[str]:
        return frozenset(self.info.get("capabilities") or ())

    @property
    def collisions(self) -> str | None:
        """The collision policy the host declares (``first-wins`` or ``last-wins``), or None."""
        declared = self.info.get("collisions")
        return declared if declared in ("first-wins", "last-wins") else None

    def require_collisions(self, policy: str) -> None:
        """Skip a check whose expectations assume ``policy`` unless the host declares it."""
        if self.collisions != policy:
            declared = f"declares {self.collisions}" if self.collisions else "declares no collision policy"
            pytest.skip(
                f"the check assumes the {policy} collision policy (the seed leaves it to the host), and the "
                f"host {declared} (info().collisions)"
            )

    def require(self, *capabilities: str) -> None:
        """Skip the calling test, with the reason, unless the host declares every capability."""
        missing = [c for c in capabilities if c not in self.capabilities]
        if missing:
            pytest.skip(f"host {self.info.get('name')!r} does not declare capability {', '.join(missing)}")

    def ask(self, method: str, *args: Any, refusal: Literal["raise", "return"] = "raise") -> JSON:
        """Ask the adapter the contract method ``method`` and check the answer. ``refusal``: "raise"
        a :class:`HostRefusal` for an ``{"error": ...}`` answer, or "return" it."""
        if method not in BY_NAME:
            raise ValueError(f"{method!r} is not a method of the adapter contract")
        try:
            value = getattr(self.adapter, method)(*args)
        except HostProtocolError:
            raise
        except Exception as exc:
            # docs/adapter-contract.md: an exception out of an adapter is a bug in the adapter, so the
            # check that met it is errored, not failed (a wire host's faults arrive as HostProtocolError).
            raise HostProtocolError(
                f"the adapter's {method}() raised {type(exc).__name__}: {exc} (an exception out "
                'of an adapter is the adapter\'s bug; answer a refusal with {"error": ...})'
            ) from exc
        return self._raw(method, value) if refusal == "return" else self._ok(method, value)

    def _raw(self, method: str, value: Any) -> JSON:
        answer = dict(_answer(method, value))
        error = answer.get("error")
        if isinstance(error, Mapping) and error.get("kind") == "unsupported" and method in BY_NAME:
            declared = BY_NAME[method]
            if not declared.allowed(self.capabilities):
                pytest.skip(
                    f"host {self.info.get('name')!r} does not declare {declared.needs_text()} "
                    f"(it answered {method} unsupported)"
                )
        return answer

    def _ok(self, method: str, value: Any) -> JSON:
        answer = self._raw(method, value)
        if "error" in answer:
            raise HostRefusal(method, answer["error"])
        return answer

    def reset(self) -> None:
        self.adapter.reset()

    def install(self, plugin: JSON) -> JSON:
        """Install a scripted plugin; returns the report, or ``{"error": ...}`` when refused whole."""
        return self.ask("install_plugin", plugin, refusal="return")

    def install_ok(self, plugin: JSON) -> JSON:
        return self.ask("install_plugin", plugin)

    def set_policy(self, account: str, **changes: Any) -> JSON:
        return self.ask("set_policy", account, changes)

    def open(self, **spec: Any) -> Session:
        """Open a session; keyword names are the session spec's fields (``identity``, ``mode`` ...)."""
        spec.setdefault("identity", {"userId": "user-1"})
        answer = self.ask("open_session", spec)
        return Session(self, str(answer["session"]), spec)

    def open_raw(self, spec: JSON) -> JSON:
        return self.ask("open_session", spec, refusal="return")
