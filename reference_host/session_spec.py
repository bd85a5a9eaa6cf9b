"""Session specs: the adapter contract's JSON form of a session, validated; contradictions are refused."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .access import Identity
from .errors import SessionSpecError

CONVERSATIONS = ("host", "managed", "local")
MODES = ("build", "plan")
_SPEC_KEYS = {
    "identity", "account", "projectId", "platform", "conversation", "mode", "planFile", "deferral",
    "permissions", "hooks", "sandboxRoot",
}


@dataclass(frozen=True)
class Hook:
    """A pre-call hook: ``decision`` "deny" refuses matching calls, "allow" lets them through."""

    tool: str
    decision: str
    message: str = ""

    def matches(self, tool: str) -> bool:
        return self.tool == "*" or self.tool == tool


@dataclass(frozen=True)
class SessionSpec:
    identity: Identity
    project_id: str | None = None
    platform: str | None = None
    conversation: str = "host"
    mode: str = "build"
    plan_file: str | None = None
    deferral_enabled: bool = True
    admin_overrides: frozenset[str] = frozenset()
    permission_deny: frozenset[str] = frozenset()
    hooks: tuple[Hook, ...] = ()
    sandbox_root: Path | None = None


def _opt_str(doc: Mapping[str, Any], key: str) -> str | None:
    value = doc.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise SessionSpecError(f"session field {key!r} must be a non-empty string, got {value!r}", subject=key)
    return value


def _str_list(doc: Mapping[str, Any], key: str, where: str) -> frozenset[str]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SessionSpecError(f"session field {where!r} must be a list of strings, got {value!r}", subject=where)
    return frozenset(value)


def parse_session_spec(doc: Mapping[str, Any]) -> SessionSpec:
    """Validate a session spec (the adapter contract's JSON form); contradictions are refused."""
    if not isinstance(doc, Mapping):
        raise SessionSpecError(f"a session spec must be an object, got {type(doc).__name__}")
    unknown = sorted(set(doc) - _SPEC_KEYS)
    if unknown:
        raise SessionSpecError(f"session spec has unknown field(s) {unknown}; known: {sorted(_SPEC_KEYS)}")
    ident = doc.get("identity") or {}
    if not isinstance(ident, Mapping) or not isinstance(ident.get("userId"), str) or not ident.get("userId"):
        raise SessionSpecError("session field 'identity' needs a non-empty string userId", subject="identity")
    for flag in ("owner", "admin"):
        if not isinstance(ident.get(flag, False), bool):
            raise SessionSpecError(f"session field 'identity.{flag}' must be a boolean", subject=f"identity.{flag}")
    account = _opt_str(doc, "account") or ident.get("accountUserId") or ident["userId"]
    identity = Identity(ident["userId"], account, bool(ident.get("owner", False)), bool(ident.get("admin", False)))
    conversation = doc.get("conversation", "host")
    mode = doc.get("mode", "build")
    if conversation not in CONVERSATIONS:
        raise SessionSpecError(f"session field 'conversation' must be one of {CONVERSATIONS}, got {conversation!r}")
    if mode not in MODES:
        raise SessionSpecError(f"session field 'mode' must be one of {MODES}, got {mode!r}")
    project_id = _opt_str(doc, "projectId")
    if conversation in ("managed", "local") and project_id is None:
        raise SessionSpecError(
            f"a {conversation} Project conversation needs a projectId", rule="PLANFILE-1", subject="projectId"
        )
    plan_file = _opt_str(doc, "planFile")
    if plan_file is not None and not (mode == "plan" and conversation in ("managed", "local")):
        raise SessionSpecError(
            f"planFile is only minted on a managed or local Project conversation's own Plan turn; this spec is a "
            f"{mode} turn in a {conversation} conversation: drop planFile or make it such a turn",
            rule="PLANFILE-1",
            subject="planFile",
        )
    deferral = doc.get("deferral") or {}
    if not isinstance(deferral, Mapping) or not isinstance(deferral.get("enabled", True), bool):
        raise SessionSpecError("session field 'deferral' must be {enabled: bool, adminOverrides: [names]}")
    permissions = doc.get("permissions") or {}
    if not isinstance(permissions, Mapping):
        raise SessionSpecError("session field 'permissions' must be {deny: [tool names]}")
    hooks = []
    for i, raw in enumerate(doc.get("hooks") or []):
        if not isinstance(raw, Mapping) or raw.get("decision") not in ("deny", "allow") or not isinstance(
            raw.get("tool"), str
        ):
            raise SessionSpecError(f"session field 'hooks[{i}]' must be {{tool, decision: deny|allow, message}}")
        hooks.append(Hook(raw["tool"], raw["decision"], str(raw.get("message", ""))))
    root = doc.get("sandboxRoot")
    if root is not None and (not isinstance(root, str) or not Path(root).is_dir()):
        raise SessionSpecError(f"session field 'sandboxRoot' must name an existing directory, got {root!r}")
    return SessionSpec(
        identity=identity,
        project_id=project_id,
        platform=_opt_str(doc, "platform"),
        conversation=conversation,
        mode=mode,
        plan_file=plan_file,
        deferral_enabled=deferral.get("enabled", True),
        admin_overrides=_str_list(deferral, "adminOverrides", "deferral.adminOverrides"),
        permission_deny=_str_list(permissions, "deny", "permissions.deny"),
        hooks=tuple(hooks),
        sandbox_root=Path(root) if root else None,
    )
