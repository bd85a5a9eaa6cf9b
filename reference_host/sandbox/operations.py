"""The sandbox: policy (:mod:`.policy`) over the link-safe tree (:mod:`.tree`), one operation at a time.

Result semantics
----------------
``SandboxResult.admitted`` is true when the operation was carried out. A refusal by policy or
by link safety names its rule (PLANFILE-2/3/4 on a read-only turn, ACCESS-8 otherwise); a plain
filesystem outcome on a build turn (a missing file, a non-empty directory) has ``rule=None``.
Malformed operations (unknown kind or executor, a path that is not a str) raise ``SandboxError``;
a str path that is not a valid guest path is a refusal, since it comes from the model.
"""

from __future__ import annotations

import threading
from pathlib import Path

from . import paths, policy
from .paths import GUEST_ROOT, Components
from .policy import SandboxAccess, SandboxOp, SandboxResult
from .tree import LinkSafeTree, Rewrite, SandboxRefusal


class Sandbox(LinkSafeTree):
    """A guest file tree backed by a real host directory, walked only through directory fds."""

    def __init__(self, root: Path, guest_root: str = GUEST_ROOT) -> None:
        super().__init__(root, guest_root)
        self._events_lock = threading.Lock()
        self.events: list[tuple[str, str | None]] = []

    def __enter__(self) -> Sandbox:
        return self

    # ----------------------------------------------------------------- guest paths

    def resolve_guest_path(self, path: str) -> Components:
        """Validate a canonical guest path and return its components below ``guest_root``."""
        return paths.resolve_guest_path(path, self.guest_root, self._root_parts)

    # ---------------------------------------------------------------------- policy

    def check(self, op: SandboxOp, access: SandboxAccess) -> SandboxResult | None:
        """Apply policy only: a refusal, or None when policy admits ``op`` under ``access``."""
        policy.validate_op(op, access)
        decision, _ = self._decide(op, access)
        return decision

    def _decide(self, op: SandboxOp, access: SandboxAccess) -> tuple[SandboxResult | None, dict[str, Components]]:
        return policy.decide(op, access, self.resolve_guest_path)

    # ------------------------------------------------------------------- perform

    def perform(self, op: SandboxOp, access: SandboxAccess, *, rewrite: Rewrite | None = None) -> SandboxResult:
        """Carry out ``op`` under ``access`` if policy and the link-safe walk allow it.

        ``rewrite`` (write/upload only) is called with the target's current bytes (None if it
        does not exist), read from the file that is about to be replaced; what it returns is
        written instead of ``op.content``, and it refuses by raising ``SandboxRefusal``.
        """
        policy.validate_op(op, access)
        decision, resolved = self._decide(op, access)
        if decision is not None:
            return decision
        plan_turn = policy.is_plan_turn(op, access)
        rule = policy.rule_for(op, access)
        comps = resolved.get("path")
        scope: str | None = None
        if plan_turn and op.executor == "paired":
            assert comps is not None
            scope = self.guest_path(comps[:-1])
        try:
            data = self._execute(op, comps, resolved.get("dest"), plan_turn, rewrite)
        except SandboxRefusal as err:
            refusal_rule = err.rule or (rule if (plan_turn or err.security) else None)
            return policy.refuse(refusal_rule, op, err.message, scope)
        return SandboxResult(True, f"{op.kind} {op.path!r} done", None, scope, data)

    def _execute(
        self, op: SandboxOp, comps: Components | None, dest: Components | None, plan_turn: bool, rewrite: Rewrite | None
    ) -> bytes | list[str] | None:
        kind = op.kind
        if kind in ("lifecycle", "desktop"):
            with self._events_lock:
                self.events.append((kind, op.path))
            return None
        assert comps is not None
        if kind in ("write", "upload"):
            # The paired executor is narrowed to the plan file's existing parent: it makes no directories.
            create = not (plan_turn and op.executor == "paired")
            self.write_bytes(comps, op.content, create_parents=create, rewrite=rewrite)
            return None
        if kind == "mkdir":
            self.make_dir(comps, create_only=plan_turn)
            return None
        if kind == "read":
            return self.read_bytes(comps)
        if kind == "list":
            return [e.name for e in self.list_entries(comps)]
        if kind == "remove":
            self.remove_entry(comps)
            return None
        assert dest is not None
        if kind == "rename":
            self.rename_entry(comps, dest)
            return None
        self.copy_file(comps, dest)
        return None
