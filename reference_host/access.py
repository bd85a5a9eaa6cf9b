"""Identity, live policy and access descriptors (ACCESS-1..5, ACCESS-8, DELEG-1..3, PLANFILE-1, PLANFILE-5).

A session captures a *ceiling* when it opens: the account's admin flag and Project scope at that
moment. Every ``current_access()`` is one fresh evaluation of the live policy, intersected with that
ceiling, so a demotion or revocation applies at once and a later grant never widens the session.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import SessionSpecError

GUEST_ROOT = "/workspace"

#: Core tools a delegated read-only child is offered although they are not classified read-only:
#: command execution follows the non-destructive boundary in read-only children too (PLANFILE-6),
#: so the child gets Bash and the boundary, not the shell's absence, keeps it from changing things.
READ_ONLY_CHILD_HOST_TOOLS = frozenset({"Bash"})


@dataclass(frozen=True)
class AccountPolicy:
    """The live host policy of one account."""

    admin: bool = False
    owner: bool = False
    project_ids: frozenset[str] = frozenset()
    plugin_grants: frozenset[str] = frozenset({"*"})
    deny: frozenset[str] = frozenset()
    roots: tuple[str, ...] = (GUEST_ROOT,)

    def grants_plugin(self, plugin: str) -> bool:
        return "*" in self.plugin_grants or plugin in self.plugin_grants


_POLICY_KEYS = {
    "admin": "admin",
    "owner": "owner",
    "projectIds": "project_ids",
    "pluginGrants": "plugin_grants",
    "deny": "deny",
    "roots": "roots",
}


def policy_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Turn a JSON policy patch (camelCase keys) into :class:`AccountPolicy` field values."""
    out: dict[str, Any] = {}
    for key, value in changes.items():
        attr = _POLICY_KEYS.get(key, key if key in _POLICY_KEYS.values() else None)
        if attr is None:
            raise SessionSpecError(
                f"policy field {key!r} is unknown; known fields: {', '.join(_POLICY_KEYS)}", subject=key
            )
        if attr in ("admin", "owner"):
            if not isinstance(value, bool):
                raise SessionSpecError(f"policy field {key!r} must be a boolean, got {value!r}", subject=key)
            out[attr] = value
        elif attr == "roots":
            out[attr] = tuple(_strings(key, value))
        else:
            out[attr] = frozenset(_strings(key, value))
    return out


def _strings(key: str, value: Any) -> list[str]:
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(v, str) for v in value):
        raise SessionSpecError(f"policy field {key!r} must be a list of strings, got {value!r}", subject=key)
    return list(value)


class PolicySource:
    """The live policy of every account; tests change it mid-session."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._policies: dict[str, AccountPolicy] = {}
        self.evaluations = 0

    def evaluate(self, account: str) -> AccountPolicy:
        """One fresh authorization evaluation of ``account``'s live policy."""
        with self._lock:
            self.evaluations += 1
            return self._policies.get(account, AccountPolicy())

    def set(self, account: str, changes: Mapping[str, Any]) -> AccountPolicy:
        """Apply a policy patch (camelCase or snake_case keys) to ``account``."""
        values = policy_changes(changes)
        with self._lock:
            policy = replace(self._policies.get(account, AccountPolicy()), **values)
            self._policies[account] = policy
            return policy


@dataclass(frozen=True)
class Identity:
    """Who a turn runs as. ``owner`` is the instance operator; ``admin`` an administrator."""

    user_id: str
    account_user_id: str
    owner: bool = False
    admin: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"userId": self.user_id, "accountUserId": self.account_user_id, "owner": self.owner, "admin": self.admin}


@dataclass(frozen=True)
class Ceiling:
    """What a session captured when it opened; live policy is intersected with it."""

    admin: bool
    project_ids: frozenset[str]


@dataclass(frozen=True)
class TurnRestrictions:
    """Restrictions of a turn: its own Plan mode and any delegated read-only origin."""

    plan_turn: bool = False
    delegated_read_only: bool = False
    inherited_plan_mode: bool = False
    plan_file: str | None = None

    @property
    def read_only(self) -> bool:
        return self.plan_turn or self.delegated_read_only

    @property
    def plan_mode(self) -> bool:
        return self.plan_turn or self.inherited_plan_mode


@dataclass(frozen=True)
class AccessDescriptor:
    """``PluginAccessDescriptor`` plus the turn-internal ``planMode`` and ``principal``."""

    admin: bool
    project_ids: tuple[str, ...]
    read_only: bool
    plan_mode: bool
    roots: tuple[str, ...]
    principal: str
    plan_file: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "admin": self.admin,
            "projectIds": list(self.project_ids),
            "readOnly": self.read_only,
            "planMode": self.plan_mode,
            "roots": list(self.roots),
            "principal": self.principal,
        }
        if self.plan_file is not None:
            out["planFile"] = self.plan_file
        return out


def evaluate_access(
    live: AccountPolicy,
    ceiling: Ceiling,
    restrictions: TurnRestrictions,
    principal: str,
    project_id: str | None = None,
) -> AccessDescriptor:
    """One fresh access evaluation: live policy intersected with the captured ceiling.

    ``project_id`` is the conversation's Project. Its plan file goes with it: once the Project the
    session captured is revoked from the live scope, the descriptor carries no ``planFile`` and the
    sandbox admits no plan write, queued or not (PLANFILE-1, ACCESS-5/6; docs/readings.md)."""
    project_ids = live.project_ids & ceiling.project_ids
    revoked = project_id is not None and project_id in ceiling.project_ids and project_id not in project_ids
    return AccessDescriptor(
        admin=live.admin and ceiling.admin,
        project_ids=tuple(sorted(project_ids)),
        read_only=restrictions.read_only,
        plan_mode=restrictions.plan_mode,
        roots=live.roots,
        principal=principal,
        plan_file=None if revoked else restrictions.plan_file,
    )


def live_identity(captured: Identity, live: AccountPolicy) -> Identity:
    """Drop captured owner/admin privilege the live policy no longer grants; never promote."""
    return replace(captured, owner=captured.owner and live.owner, admin=captured.admin and live.admin)


def child_restrictions(parent: TurnRestrictions, *, read_only: bool, requested: Mapping[str, Any]) -> TurnRestrictions:
    """Restrictions of a delegated child (DELEG-1..3, PLANFILE-5).

    Whatever ``requested`` says (it is what plugin code constructed for the child), a restriction
    the parent has can only be kept: ``readOnly`` and ``planMode`` are ORed, never cleared, and a
    ``planFile`` is never constructed or forwarded.
    """
    delegated = read_only or parent.read_only or bool(requested.get("readOnly"))
    inherited_plan = parent.plan_mode or bool(requested.get("planMode"))
    # A child starts in Build: its own turn is never a Plan turn, so it has no planFile of its own.
    return TurnRestrictions(
        plan_turn=False,
        delegated_read_only=delegated,
        inherited_plan_mode=inherited_plan,
        plan_file=None,
    )


def as_project_ids(value: Iterable[str] | None) -> frozenset[str]:
    return frozenset(value or ())
