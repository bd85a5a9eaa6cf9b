"""What a turn admits: the access an operation runs under, the operation, and the decision.

Rules: PLANFILE-2 (only the exact plan file and its create-only parents), PLANFILE-3 (no remove,
rename, copy, lifecycle or Desktop on a read-only turn), PLANFILE-4 (the paired-computer executor
writes only the plan file), PLANFILE-5 (a child never inherits the plan file), ACCESS-8 (the
access's roots confine every operation). Nothing here touches the filesystem.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import SandboxError
from .paths import GUEST_ROOT, Components

MUTATING_KINDS = frozenset({"write", "upload", "mkdir", "remove", "rename", "copy", "lifecycle", "desktop"})
READ_KINDS = frozenset({"read", "list"})
KINDS = MUTATING_KINDS | READ_KINDS
EXECUTORS = frozenset({"sandbox", "paired"})
# The kinds the plan allowance never grants, whatever the path (PLANFILE-3).
UNGRANTED_KINDS = frozenset({"remove", "rename", "copy", "lifecycle", "desktop"})

Resolve = Callable[[str], Components]


@dataclass(frozen=True)
class SandboxAccess:
    """The access one operation runs under, built fresh from the live descriptor each time."""

    read_only: bool
    plan_file: str | None
    roots: tuple[str, ...] = (GUEST_ROOT,)

    def __post_init__(self) -> None:
        if not isinstance(self.read_only, bool):
            raise SandboxError(f"read_only must be a bool, got {self.read_only!r}", subject="read_only")
        if self.plan_file is not None and not isinstance(self.plan_file, str):
            raise SandboxError(f"plan_file must be a str or None, got {self.plan_file!r}", subject="plan_file")
        if not isinstance(self.roots, tuple) or not all(isinstance(r, str) for r in self.roots):
            raise SandboxError(f"roots must be a tuple of str, got {self.roots!r}", subject="roots")


def child_access(parent: SandboxAccess) -> SandboxAccess:
    """Access for a delegated child: read-only is kept (DELEG-3), the plan file never is (PLANFILE-5)."""
    return SandboxAccess(read_only=parent.read_only, plan_file=None, roots=parent.roots)


@dataclass(frozen=True)
class SandboxOp:
    """One file operation as a plugin or core tool asks for it."""

    kind: str
    path: str | None
    dest: str | None = None
    content: bytes = b""
    executor: str = "sandbox"


@dataclass(frozen=True)
class SandboxResult:
    """What happened to an operation; ``admitted`` means it was carried out."""

    admitted: bool
    reason: str
    rule: str | None
    scope: str | None = None
    data: bytes | list[str] | None = None


def validate_op(op: object, access: object) -> None:
    """Refuse a malformed operation with ``SandboxError`` (a programming error, not a policy refusal)."""
    if not isinstance(op, SandboxOp):
        raise SandboxError(f"expected a SandboxOp, got {type(op).__name__}")
    if not isinstance(access, SandboxAccess):
        raise SandboxError(f"expected a SandboxAccess, got {type(access).__name__}")
    if op.kind not in KINDS:
        raise SandboxError(f"unknown operation kind {op.kind!r}; expected one of {sorted(KINDS)}", subject=str(op.kind))
    if op.executor not in EXECUTORS:
        raise SandboxError(
            f"unknown executor {op.executor!r}; expected one of {sorted(EXECUTORS)}", subject=str(op.executor)
        )
    for name in ("path", "dest"):
        value = getattr(op, name)
        if value is not None and not isinstance(value, str):
            raise SandboxError(f"op.{name} must be a str, got {type(value).__name__}", subject=name)
    if op.path is None and op.kind not in ("lifecycle", "desktop"):
        raise SandboxError(f"a {op.kind} operation needs a path", subject=op.kind)
    if op.dest is None and op.kind in ("rename", "copy"):
        raise SandboxError(f"a {op.kind} operation needs a dest", subject=op.kind)
    if not isinstance(op.content, bytes):
        raise SandboxError(f"op.content must be bytes, got {type(op.content).__name__}", subject="content")


def is_plan_turn(op: SandboxOp, access: SandboxAccess) -> bool:
    """Whether ``op`` is a mutation on a read-only turn, where only the plan allowance can admit it."""
    return access.read_only and op.kind in MUTATING_KINDS


def rule_for(op: SandboxOp, access: SandboxAccess) -> str:
    """The rule a refusal of ``op`` under ``access`` belongs to."""
    if is_plan_turn(op, access):
        return "PLANFILE-4" if op.executor == "paired" else "PLANFILE-2"
    return "ACCESS-8"


def refuse(rule: str | None, op: SandboxOp, why: str, scope: str | None = None) -> SandboxResult:
    """A refusal of ``op`` whose reason names the rule, the kind and the path."""
    prefix = f"[{rule}] " if rule else ""
    return SandboxResult(False, f"{prefix}{op.kind} {op.path!r} refused: {why}", rule, scope)


def within_roots(comps: Components, access: SandboxAccess, resolve: Resolve) -> bool:
    """Whether ``comps`` lies under one of the access's roots."""
    for root in access.roots:
        try:
            rc = resolve(root)
        except SandboxError:
            continue  # an unusable root confines to nothing rather than to everything
        if comps[: len(rc)] == rc:
            return True
    return False


def decide(op: SandboxOp, access: SandboxAccess, resolve: Resolve
           ) -> tuple[SandboxResult | None, dict[str, Components]]:
    """A refusal, or None and the resolved components (``path``, ``dest``, ``plan``) of an admitted op."""
    rule = rule_for(op, access)
    plan_turn = is_plan_turn(op, access)
    if plan_turn:
        if op.kind in UNGRANTED_KINDS:
            return refuse(
                "PLANFILE-3", op, f"a read-only turn grants no {op.kind} permission, the plan file included"
            ), {}
        if access.plan_file is None:
            return refuse("PLANFILE-2", op, "this read-only access carries no plan file, so it admits no write"), {}
        if op.executor == "paired" and op.kind != "write":
            return refuse(
                "PLANFILE-4", op, f"the paired-computer executor admits only a write of the plan file, not {op.kind}"
            ), {}
    resolved: dict[str, Components] = {}
    for name in ("path", "dest"):
        value = getattr(op, name)
        if value is None:
            continue
        try:
            comps = resolve(value)
        except SandboxError as err:
            return refuse(rule, op, err.detail), {}
        if not within_roots(comps, access, resolve):
            return refuse(rule, op, f"{value!r} is outside this access's roots {list(access.roots)}"), {}
        resolved[name] = comps
    if plan_turn:
        assert access.plan_file is not None
        try:
            plan = resolve(access.plan_file)
        except SandboxError as err:
            return refuse(rule, op, f"the plan file is unusable: {err.detail}"), {}
        if not plan:
            return refuse(rule, op, "the plan file names the guest root itself"), {}
        comps = resolved["path"]
        if op.kind in ("write", "upload"):
            if comps != plan:
                return refuse(rule, op, f"only the plan file {access.plan_file!r} may be written on this turn"), {}
        elif op.kind == "mkdir":
            if not comps or len(comps) >= len(plan) or plan[: len(comps)] != comps:
                return refuse(
                    rule, op, f"only missing ancestors of the plan file {access.plan_file!r} may be created"
                ), {}
        resolved["plan"] = plan
    return None, resolved
