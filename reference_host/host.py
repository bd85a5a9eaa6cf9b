"""The reference host: registry, live policy and sessions behind one small facade."""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .access import Ceiling, PolicySource, TurnRestrictions
from .asyncutil import CallTimeout, run_bounded
from .context import active_call
from .core_tools import CORE_READ_ONLY, core_tools
from .errors import HostError, PluginLoadError, SessionSpecError
from .manifest import parse_manifest
from .registry import InstallFinding, InstallReport, RegistrationContext, Registry
from .sandbox import FileTools, Sandbox
from .session import Session
from .session_spec import SessionSpec, parse_session_spec
from .workspace import Workspace

_NO_IDENTITY = {"userId": None, "accountUserId": None, "owner": False, "admin": False}
_NO_ACCESS = {"admin": False, "projectIds": [], "readOnly": True, "planMode": False, "roots": [], "principal": None}


def _plan_path(session_id: str) -> str:
    return f"/workspace/.plans/{session_id}/plan.md"


class Host:
    """An in-process host. ``call_timeout`` and ``register_timeout`` bound plugin code, in seconds."""

    name = "reference-host"

    def __init__(self, *, call_timeout: float = 10.0, register_timeout: float = 10.0,
                 collisions: str = "first-wins") -> None:
        self.registry = Registry(collisions=collisions)
        self.policies = PolicySource()
        self.call_timeout = call_timeout
        self.register_timeout = register_timeout
        self._sessions: dict[str, Session] = {}
        # Keyed by the directory itself (device, inode), never by the path that named it: a path
        # whose ancestor link was retargeted names another directory and gets another sandbox.
        self._sandboxes: dict[tuple[int, int], Sandbox] = {}
        self._file_tools: dict[tuple[int, int], FileTools] = {}
        self._temp_roots: list[Path] = []
        self._lock = threading.Lock()
        for tool in core_tools():
            self.registry.add_core(
                tool, read_only=tool.name in CORE_READ_ONLY, plan_admitted=tool.name in CORE_READ_ONLY
            )

    # -- plugins --------------------------------------------------------------------------------------
    def install_plugin(
        self, plugin: Any, *, manifest: Mapping[str, Any] | None = None, name: str | None = None
    ) -> InstallReport:
        """Run ``plugin.register(ctx)`` (sync or async) and merge what it registered.

        A bad manifest raises :class:`ManifestError`; a ``register`` that throws or hangs raises
        :class:`PluginLoadError` and leaves the registry as it was. Refused registrations and
        findings are in the returned report.
        """
        default_name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
        parsed = parse_manifest(manifest, default_name=default_name)
        register = getattr(plugin, "register", None)
        if not callable(register):
            raise PluginLoadError(
                f"plugin {parsed.name!r} has no register(ctx) function; a plugin exports register(ctx)",
                rule="REG-1",
                subject=parsed.name,
            )
        report = InstallReport(plugin=parsed.name)

        def read(kind: str, value: Any) -> Any:
            call = active_call()
            if call is None:
                report.findings.append(
                    InstallFinding(
                        "SCOPE-4",
                        f"plugin {parsed.name!r} read {kind} during register(); read it at execution "
                        "time instead, inside the tool's execute",
                    )
                )
                return value
            session = call.session
            if kind == "currentIdentity()":
                return session.current_identity().as_dict()
            if kind == "currentAccess()":
                return session.current_access().as_dict()
            return session.current_account_user_id()

        ctx = RegistrationContext(
            self.registry,
            parsed.name,
            report,
            identity_reader=lambda: read("currentIdentity()", dict(_NO_IDENTITY)),
            access_reader=lambda: read("currentAccess()", dict(_NO_ACCESS)),
            account_reader=lambda: read("currentAccountUserId()", None),
        )
        try:
            run_bounded(lambda: register(ctx), self.register_timeout)
        except CallTimeout as exc:
            raise PluginLoadError(
                f"register() of plugin {parsed.name!r} {exc}", rule="REG-1", subject=parsed.name
            ) from None
        except HostError:
            raise
        except Exception as exc:  # noqa: BLE001 - a plugin's own failure is reported, never a traceback of ours
            raise PluginLoadError(
                f"register() of plugin {parsed.name!r} raised {type(exc).__name__}: {exc}",
                rule="REG-1",
                subject=parsed.name,
            ) from exc
        self.registry.merge(parsed, ctx, report)
        return report

    # -- policy ---------------------------------------------------------------------------------------
    def set_policy(self, account: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        policy = self.policies.set(account, changes)
        return {
            "admin": policy.admin,
            "owner": policy.owner,
            "projectIds": sorted(policy.project_ids),
            "pluginGrants": sorted(policy.plugin_grants),
            "deny": sorted(policy.deny),
            "roots": list(policy.roots),
        }

    # -- sessions -------------------------------------------------------------------------------------
    def open_session(self, spec: Mapping[str, Any] | SessionSpec) -> Session:
        parsed = spec if isinstance(spec, SessionSpec) else parse_session_spec(spec)
        live = self.policies.evaluate(parsed.identity.account_user_id)
        # The ceiling is what the account had when the session opened; later grants never widen it.
        ceiling = Ceiling(admin=live.admin, project_ids=live.project_ids)
        plan_turn = parsed.mode == "plan"
        workspace = Workspace(parsed.sandbox_root, self._open_files, self._temp_root)
        session = Session(self, parsed, TurnRestrictions(plan_turn=plan_turn), ceiling, workspace)
        if plan_turn and parsed.conversation in ("managed", "local"):
            session.restrictions = TurnRestrictions(
                plan_turn=True, plan_file=parsed.plan_file or _plan_path(session.id)
            )
        self.adopt(session)
        return session

    def _temp_root(self) -> Path:
        """A temporary root for a session whose spec named none; removed when the host closes."""
        root = Path(tempfile.mkdtemp(prefix="toolconformance-sandbox-"))
        with self._lock:
            self._temp_roots.append(root)
        return root

    def _open_files(self, root: Path) -> tuple[Sandbox, FileTools]:
        """The sandbox and file tools of a workspace, opened when the workspace is first used."""
        return self.sandbox_for(root), self.file_tools_for(root)

    def sandbox_for(self, root: Path) -> Sandbox:
        """One :class:`Sandbox` per host directory, shared by every session and child working in it.

        ``root`` is opened now and the directory it names now decides which sandbox it gets."""
        opened = Sandbox(root)
        key = opened.identity()
        with self._lock:
            known = self._sandboxes.get(key)
            if known is None:
                self._sandboxes[key] = opened
                return opened
        opened.close()
        return known

    def file_tools_for(self, root: Path) -> FileTools:
        """The core file tools over the sandbox of ``root`` (one mutation queue per directory)."""
        sandbox = self.sandbox_for(root)
        key = sandbox.identity()
        with self._lock:
            if key not in self._file_tools:
                self._file_tools[key] = FileTools(sandbox)
            return self._file_tools[key]

    def close(self) -> None:
        """Close every sandbox this host opened and remove the temporary roots it made."""
        with self._lock:
            for sandbox in self._sandboxes.values():
                sandbox.close()
            self._sandboxes.clear()
            self._file_tools.clear()
            temp_roots, self._temp_roots = self._temp_roots, []
        for root in temp_roots:
            shutil.rmtree(root, ignore_errors=True)

    def adopt(self, session: Session) -> None:
        with self._lock:
            self._sessions[session.id] = session

    def session(self, session_id: str) -> Session:
        try:
            return self._sessions[session_id]
        except KeyError:
            raise SessionSpecError(f"no session {session_id!r}; open one first", subject=session_id) from None
