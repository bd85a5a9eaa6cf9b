"""The reference host behind the adapter contract: the kit's default subject."""

from __future__ import annotations

import shutil
import tempfile
from typing import Any

import reference_host
from reference_host import Host, HostError, ScriptedPlugin
from reference_host.errors import ManifestError, PluginLoadError, SandboxError, SessionSpecError

from ..adapter import CAPABILITIES, JSON, error


def _kind(exc: HostError) -> str:
    if isinstance(exc, ManifestError):
        return "manifest"
    if isinstance(exc, PluginLoadError):
        return "load"
    if isinstance(exc, SandboxError):
        return "sandbox"
    if isinstance(exc, SessionSpecError):
        return "spec"
    return "spec"


def _as_error(exc: HostError) -> JSON:
    return error(_kind(exc), exc.detail, rule=exc.rule, subject=exc.subject)


class ReferenceHostAdapter:
    """Adapter over :class:`reference_host.Host`. ``host_factory`` lets a wrapper (a mutant, say)
    substitute a subclass of the host."""

    def __init__(self, *, call_timeout: float = 10.0, host_factory: Any = None) -> None:
        self._factory = host_factory or (lambda: Host(call_timeout=call_timeout, register_timeout=call_timeout))
        self.host: Host = self._factory()
        self._tmp: list[str] = []

    def info(self) -> JSON:
        return {
            "name": Host.name,
            "version": getattr(reference_host, "__version__", "0.1.0"),
            "capabilities": sorted(CAPABILITIES),
        }

    def reset(self) -> None:
        self.close()
        self.host = self._factory()

    def install_plugin(self, plugin: JSON) -> JSON:
        try:
            scripted = ScriptedPlugin(plugin)
            return self.host.install_plugin(scripted, manifest=scripted.manifest).as_dict()
        except HostError as exc:
            return _as_error(exc)

    def set_policy(self, account: str, changes: JSON) -> JSON:
        try:
            return self.host.set_policy(account, changes)
        except HostError as exc:
            return _as_error(exc)

    def open_session(self, spec: JSON) -> JSON:
        try:
            return {"session": self.host.open_session(spec).id}
        except HostError as exc:
            return _as_error(exc)

    def _session(self, session: str) -> Any:
        return self.host.session(session)

    def compose(self, session: str) -> JSON:
        try:
            return self._session(session).compose().as_dict()
        except HostError as exc:
            return _as_error(exc)

    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> JSON:
        try:
            return self._session(session).call(tool, arguments, call_id).as_dict()
        except HostError as exc:
            return _as_error(exc)

    def queue_call(self, session: str, tool: str, arguments: Any) -> JSON:
        try:
            return {"ticket": self._session(session).queue_call(tool, arguments)}
        except HostError as exc:
            return _as_error(exc)

    def run_queued(self, session: str) -> JSON:
        try:
            return {"outcomes": [o.as_dict() for o in self._session(session).run_queued()]}
        except HostError as exc:
            return _as_error(exc)

    def current_access(self, session: str) -> JSON:
        try:
            return self._session(session).current_access().as_dict()
        except HostError as exc:
            return _as_error(exc)

    def current_identity(self, session: str) -> JSON:
        try:
            return self._session(session).current_identity().as_dict()
        except HostError as exc:
            return _as_error(exc)

    def delegate(self, session: str, request: JSON) -> JSON:
        try:
            child = self._session(session).delegate(
                read_only=bool(request.get("readOnly", True)), requested=request.get("requested") or {}
            )
            return {"session": child.id}
        except HostError as exc:
            return _as_error(exc)

    def sandbox(self, session: str, op: JSON) -> JSON:
        try:
            result = self._session(session).sandbox_op(op)
        except HostError as exc:
            return _as_error(exc)
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


def factory() -> ReferenceHostAdapter:
    """``--toolconformance-host=pytest_toolconformance.adapters.reference:factory`` (the default)."""
    return ReferenceHostAdapter()
