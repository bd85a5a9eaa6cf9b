"""The tool registry: registration options, collisions, classification and findings.

A plugin's ``register(ctx)`` runs against a staging context. Each ``register_tool`` call is checked
at once (EXT-1, SCHEMA-1, SCOPE-1, REG-2, EXT-3) and either staged or recorded as a refusal; a
refusal is not raised into the plugin, so one bad tool does not stop its siblings, and it leaves
the registry as it was. When ``register`` has finished, the staged registrations merge into the
registry together with their owner's read-only classification (RO-1..3).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import PluginLoadError
from .manifest import Manifest
from .schemas import flat_object_problem
from .tools import Tool

CORE_PLUGIN = "core"
_UNSET: Any = object()


@dataclass(frozen=True)
class Registration:
    """One accepted tool with its normalized host-side metadata (``PluginToolMetadata``)."""

    tool: Tool
    plugin: str
    external: bool
    owner_user_id: str | None = None
    project_id: str | None = None
    platform: str | None = None
    read_only: bool = False
    plan_admitted: bool = False
    deferred: bool = False
    show_output: bool = False

    @property
    def name(self) -> str:
        return self.tool.name

    def metadata(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "plugin": self.plugin,
            "external": self.external,
            "ownerUserId": self.owner_user_id,
            "projectId": self.project_id,
            "platform": self.platform,
            "readOnly": self.read_only,
            "planAdmitted": self.plan_admitted,
            "deferLoading": self.deferred,
            "showOutput": self.show_output,
        }


@dataclass(frozen=True)
class Refusal:
    tool: str
    rule: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"tool": self.tool, "rule": self.rule, "message": self.message}


@dataclass(frozen=True)
class InstallFinding:
    """Something a plugin did that a plugin rule reports (not a refusal)."""

    rule: str
    message: str
    tool: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "message": self.message, "tool": self.tool}


@dataclass
class InstallReport:
    plugin: str
    accepted: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    findings: list[InstallFinding] = field(default_factory=list)
    logs: list[tuple[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "plugin": self.plugin,
            "accepted": list(self.accepted),
            "refused": [r.as_dict() for r in self.refused],
            "findings": [f.as_dict() for f in self.findings],
            "logs": [{"level": lvl, "message": msg} for lvl, msg in self.logs],
        }


@dataclass(frozen=True)
class _Staged:
    tool: Tool
    external: bool
    owner_user_id: str | None
    project_id: str | None
    platform: str | None


class PluginLogger:
    """``ctx.logger``: records lines for the install report and forwards them to :mod:`logging`."""

    def __init__(self, plugin: str, sink: list[tuple[str, str]]) -> None:
        self._log = logging.getLogger(f"reference_host.plugin.{plugin}")
        self._sink = sink

    def _emit(self, level: str, message: Any) -> None:
        self._sink.append((level, str(message)))
        self._log.log(logging.getLevelName(level.upper()), "%s", message)

    def debug(self, message: Any) -> None:
        self._emit("debug", message)

    def info(self, message: Any) -> None:
        self._emit("info", message)

    def warning(self, message: Any) -> None:
        self._emit("warning", message)

    warn = warning

    def error(self, message: Any) -> None:
        self._emit("error", message)


class RegistrationContext:
    """The ``ctx`` a plugin's ``register(ctx)`` receives (PluginContext)."""

    def __init__(
        self,
        registry: Registry,
        plugin: str,
        report: InstallReport,
        identity_reader: Callable[[], dict[str, Any]],
        access_reader: Callable[[], dict[str, Any]],
        account_reader: Callable[[], str | None],
    ) -> None:
        self._registry = registry
        self._plugin = plugin
        self._report = report
        self._staged: dict[str, _Staged] = {}
        self._identity_reader = identity_reader
        self._access_reader = access_reader
        self._account_reader = account_reader
        self.logger = PluginLogger(plugin, report.logs)
        self.plugin_name = plugin

    # -- registration ---------------------------------------------------------------------------
    def register_tool(
        self,
        tool: Tool,
        *,
        external: Any = _UNSET,
        owner_user_id: Any = None,
        project_id: Any = None,
        platform: Any = None,
        **unknown: Any,
    ) -> bool:
        """Register ``tool``; returns whether it was accepted (a refusal is in the install report)."""
        name = getattr(tool, "name", None)
        label = name if isinstance(name, str) and name else repr(tool)
        refusal = self._check(tool, label, external, owner_user_id, project_id, platform, unknown)
        if refusal is not None:
            self._report.refused.append(refusal)
            self.logger.error(f"registration of {label!r} refused: [{refusal.rule}] {refusal.message}")
            return False
        self._staged[tool.name] = _Staged(
            tool=tool,
            external=False if external is _UNSET else external,
            owner_user_id=owner_user_id,
            project_id=project_id,
            platform=platform,
        )
        return True

    def _check(
        self,
        tool: Any,
        label: str,
        external: Any,
        owner_user_id: Any,
        project_id: Any,
        platform: Any,
        unknown: Mapping[str, Any],
    ) -> Refusal | None:
        if not isinstance(tool, Tool):
            return Refusal(label, "REG-2", "register_tool takes a tool built with define_tool(...)")
        if unknown:
            return Refusal(
                label,
                "SCOPE-1",
                f"unknown registration option(s) {sorted(unknown)}; known: external, owner_user_id, project_id, "
                f"platform",
            )
        # EXT-1: an omitted option normalizes to false; any present value but a boolean, null
        # included, is refused (docs/readings.md).
        if external is not _UNSET and not isinstance(external, bool):
            return Refusal(label, "EXT-1", f"option external must be a boolean, got {external!r}")
        for option, value in (("owner_user_id", owner_user_id), ("project_id", project_id), ("platform", platform)):
            if value is not None and (not isinstance(value, str) or not value):
                return Refusal(label, "SCOPE-1", f"option {option} must be a non-empty string, got {value!r}")
        is_external = external is True
        if not is_external and not tool.description:
            return Refusal(
                label,
                "REG-2",
                "an internal tool needs a non-empty description (only an external tool's "
                "description is left to its owner); give defineTool a description string",
            )
        if not is_external:
            problem = flat_object_problem(tool.parameters)
            if problem:
                return Refusal(label, "SCHEMA-1", f"local tool schema is not one flat object: {problem}")
        if tool.name in self._staged:
            return Refusal(label, "REG-2", f"tool name {tool.name!r} is registered twice by plugin {self._plugin!r}")
        owner = self._registry.owner_of(tool.name)
        if owner is not None and not self._registry.replaces(tool.name):
            return Refusal(
                label,
                "EXT-3",
                f"tool name {tool.name!r} is already owned by plugin {owner!r}; the registration is rejected and "
                "contributes neither origin nor read-only classification",
            )
        return None

    # -- identity and access --------------------------------------------------------------------
    def current_identity(self) -> dict[str, Any]:
        return self._identity_reader()

    def current_access(self) -> dict[str, Any]:
        return self._access_reader()

    def current_account_user_id(self) -> str | None:
        return self._account_reader()

    # camelCase aliases, so a plugin written against the JS names works too
    registerTool = register_tool  # noqa: N815
    currentIdentity = current_identity  # noqa: N815
    currentAccess = current_access  # noqa: N815
    currentAccountUserId = current_account_user_id  # noqa: N815

    def staged(self) -> list[_Staged]:
        return list(self._staged.values())


#: How a registry settles two plugins registering one tool name (EXT-3). The seed leaves it open:
#: "first-wins" rejects the later registration, "last-wins" replaces the earlier one. Either way the
#: name's metadata is the accepted owner's alone; a core tool's name is never replaced.
COLLISION_POLICIES = ("first-wins", "last-wins")


class Registry:
    """Every accepted registration, keyed by tool name, in registration order."""

    def __init__(self, *, collisions: str = "first-wins") -> None:
        if collisions not in COLLISION_POLICIES:
            raise ValueError(f"collisions must be one of {COLLISION_POLICIES}, not {collisions!r}")
        self.collisions = collisions
        self._lock = threading.RLock()
        self._tools: dict[str, Registration] = {}
        self._manifests: dict[str, Manifest] = {}

    def replaces(self, name: str) -> bool:
        """Whether a new registration of ``name`` replaces the one in force (last-wins, never a core tool)."""
        reg = self._tools.get(name)
        return self.collisions == "last-wins" and (reg is None or reg.plugin != CORE_PLUGIN)

    def owner_of(self, name: str) -> str | None:
        reg = self._tools.get(name)
        return reg.plugin if reg else None

    def get(self, name: str) -> Registration | None:
        return self._tools.get(name)

    def __iter__(self) -> Iterator[Registration]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def manifest(self, plugin: str) -> Manifest | None:
        return self._manifests.get(plugin)

    def plugins(self) -> list[str]:
        return list(self._manifests)

    def add_core(self, tool: Tool, *, read_only: bool, plan_admitted: bool) -> None:
        self._tools[tool.name] = Registration(
            tool=tool, plugin=CORE_PLUGIN, external=False, read_only=read_only, plan_admitted=plan_admitted
        )

    def merge(self, manifest: Manifest, context: RegistrationContext, report: InstallReport) -> None:
        """Merge a finished ``register`` into the registry with its owner's classification."""
        with self._lock:
            if manifest.name in self._manifests or manifest.name == CORE_PLUGIN:
                raise PluginLoadError(
                    f"a plugin named {manifest.name!r} is already installed; plugin names must be unique",
                    subject=manifest.name,
                )
            staged = context.staged()
            # A concurrent install may have taken a name since register_tool checked it.
            for item in staged:
                owner = self.owner_of(item.tool.name)
                if owner is not None and not self.replaces(item.tool.name):
                    report.refused.append(
                        Refusal(item.tool.name, "EXT-3", f"tool name {item.tool.name!r} is already owned by {owner!r}")
                    )
            staged = [s for s in staged if self.owner_of(s.tool.name) is None or self.replaces(s.tool.name)]
            own_names = {s.tool.name for s in staged}
            for name in sorted(manifest.exact_read_only - own_names):
                report.findings.append(
                    InstallFinding(
                        "RO-3",
                        f"plugin {manifest.name!r} declares {name!r} read-only but does not own a registration of "
                        "it; the declaration classifies nothing",
                        name,
                    )
                )
            for item in staged:
                exact = item.tool.name in manifest.exact_read_only
                wildcard = item.external and manifest.external_read_only
                self._tools[item.tool.name] = Registration(
                    tool=item.tool,
                    plugin=manifest.name,
                    external=item.external,
                    owner_user_id=item.owner_user_id,
                    project_id=item.project_id,
                    platform=item.platform,
                    read_only=exact or wildcard,
                    # PLAN-2/PLAN-3: exact names only, and never an external tool.
                    plan_admitted=exact and not item.external,
                    deferred=manifest.defers(item.tool.name),
                    show_output=manifest.shows_output(item.tool.name),
                )
                report.accepted.append(item.tool.name)
            self._manifests[manifest.name] = manifest
            report.findings.extend(_audit_findings(manifest, report.accepted))


def _audit_findings(manifest: Manifest, accepted: list[str]) -> list[InstallFinding]:
    """MANIFEST-3: provides.tools is an audit declaration; report where it and registration differ."""
    if not manifest.tools:
        return []
    findings: list[InstallFinding] = []
    declared = set(manifest.tools)
    wildcard = "mcp__*" in declared
    for name in manifest.tools:
        if name.endswith("*"):
            continue
        if name not in accepted:
            findings.append(
                InstallFinding(
                    "MANIFEST-3", f"provides.tools lists {name!r} but the plugin registered no such tool", name
                )
            )
    for name in accepted:
        if name not in declared and not (wildcard and name.startswith("mcp__")):
            findings.append(
                InstallFinding("MANIFEST-3", f"tool {name!r} is registered but not listed in provides.tools", name)
            )
    return findings
