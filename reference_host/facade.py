"""The reference host behind a JSON facade: the adapter contract's methods, JSON in and JSON out.

The kit's in-process adapter (``pytest_toolconformance.host.inprocess``) and the wire server
(:mod:`pytest_toolconformance.host.wire.reference_server`) both speak through :class:`JsonHost`,
so the two cannot drift apart.
This module must not import the kit: the reference host is a host like any other, and a host does
not depend on the test kit that checks it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from typing import Any

from .errors import HostError, ManifestError, PluginLoadError, SandboxError
from .host import Host
from .scripted import ScriptedPlugin

JSON = dict[str, Any]

VERSION = "0.1.0"

#: What the reference host supports: every capability the kit knows (tests/kit/host/wire/test_wire_client.py keeps
#: this list equal to ``pytest_toolconformance.host.contract.CAPABILITIES``).
CAPABILITIES: tuple[str, ...] = (
    "bash",
    "calls",
    "composition",
    "deferral",
    "delegation",
    "diagnostics",
    "file-tools",
    "hooks",
    "mutation-queue",
    "paired-executor",
    "plan-file",
    "plan-mode",
    "policy",
    "registration",
    "sandbox",
    "scoping",
)


def error(kind: str, message: str, *, rule: str | None = None, subject: str | None = None) -> JSON:
    """The structured error a contract method returns for input it refuses."""
    return {"error": {"kind": kind, "message": message, "rule": rule, "subject": subject}}


def error_kind(exc: HostError) -> str:
    if isinstance(exc, ManifestError):
        return "manifest"
    if isinstance(exc, PluginLoadError):
        return "load"
    if isinstance(exc, SandboxError):
        return "sandbox"
    return "spec"


def as_error(exc: HostError) -> JSON:
    return error(error_kind(exc), exc.detail, rule=exc.rule, subject=exc.subject)


class JsonHost:
    """The adapter contract over :class:`reference_host.Host`.

    ``host_factory`` lets a wrapper (a mutant, say) substitute a subclass of the host; ``reset``
    calls it again for a fresh host.
    """

    def __init__(self, *, call_timeout: float = 10.0, host_factory: Callable[[], Host] | None = None) -> None:
        self._factory: Callable[[], Host] = host_factory or (
            lambda: Host(call_timeout=call_timeout, register_timeout=call_timeout)
        )
        self.host: Host = self._factory()
        self._tmp: list[str] = []

    def info(self) -> JSON:
        return {"name": Host.name, "version": VERSION, "capabilities": list(CAPABILITIES),
                "collisions": self.host.registry.collisions}

    def reset(self) -> None:
        self.close()
        self.host = self._factory()

    def install_plugin(self, plugin: JSON) -> JSON:
        try:
            scripted = ScriptedPlugin(plugin)
            return self.host.install_plugin(scripted, manifest=scripted.manifest).as_dict()
        except HostError as exc:
            return as_error(exc)

    def set_policy(self, account: str, changes: JSON) -> JSON:
        try:
            return self.host.set_policy(account, changes)
        except HostError as exc:
            return as_error(exc)

    def open_session(self, spec: JSON) -> JSON:
        try:
            return {"session": self.host.open_session(spec).id}
        except HostError as exc:
            return as_error(exc)

    def _session(self, session: str) -> Any:
        return self.host.session(session)

    def compose(self, session: str) -> JSON:
        try:
            return self._session(session).compose().as_dict()
        except HostError as exc:
            return as_error(exc)

    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> JSON:
        try:
            return self._session(session).call(tool, arguments, call_id).as_dict()
        except HostError as exc:
            return as_error(exc)

    def queue_call(self, session: str, tool: str, arguments: Any) -> JSON:
        try:
            return {"ticket": self._session(session).queue_call(tool, arguments)}
        except HostError as exc:
            return as_error(exc)

    def run_queued(self, session: str) -> JSON:
        try:
            return {"outcomes": [o.as_dict() for o in self._session(session).run_queued()]}
        except HostError as exc:
            return as_error(exc)

    def current_access(self, session: str) -> JSON:
        try:
            return self._session(session).current_access().as_dict()
        except HostError as exc:
            return as_error(exc)

    def current_identity(self, session: str) -> JSON:
        try:
            return self._session(session).current_identity().as_dict()
        except HostError as exc:
            return as_error(exc)

    def delegate(self, session: str, request: JSON) -> JSON:
        try:
            child = self._session(session).delegate(
                read_only=bool(request.get("readOnly", True)), requested=request.get("requested") or {}
            )
            return {"session": child.id}
        except HostError as exc:
            return as_error(exc)

    def sandbox(self, session: str, op: JSON) -> JSON:
        try:
            result = self._session(session).sandbox_op(op)
        except HostError as exc:
            return as_error(exc)
        return {"admitted": result.admitted, "reason": result.reason, "rule": result.rule, "scope": result.scope}

    def close(self) -> None:
        self.host.close()
        for path in self._tmp:
            shutil.rmtree(path, ignore_errors=True)
        self._tmp.clear()

    def temp_dir(self) -> str:
        path = tempfile.mkdtemp(prefix="toolconformance-")
        self._tmp.append(path)
        return path


__all__ = ["CAPABILITIES", "JSON", "JsonHost", "VERSION", "as_error", "error", "error_kind"]
