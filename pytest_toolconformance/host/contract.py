"""The host adapter contract: everything the conformance suites may ask of a host.

Every method takes and returns JSON-able values (dicts, lists, strings, numbers, booleans), so the
same contract is spoken over the wire protocol by a host in any language. A method that cannot do
what it is asked for bad input returns ``{"error": {...}}`` (see :func:`error`) instead of raising;
an exception out of an adapter is a bug in the adapter and is reported as *errored*.

The shapes are documented in docs/adapter-contract.md; the scripted plugin format is validated by
``schemas/scripted-plugin.schema.json``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

JSON = dict[str, Any]

#: Every capability a host may declare. A suite that needs an undeclared one is skipped with a reason.
CAPABILITIES: dict[str, str] = {
    "registration": "install scripted plugins and report accepted and refused registrations",
    "composition": "compose a session: catalog, model tool list, provider payload, cache diagnostics",
    "calls": "call tools through the host pipeline",
    "scoping": "ownerUserId / projectId / platform registration options",
    "deferral": "deferLoading and the ToolSearch loader",
    "plan-mode": "Plan turns and the plan-mode execution policy",
    "hooks": "pre-call hooks in the session spec",
    "policy": "change an account's live policy mid-session",
    "delegation": "delegate a child session",
    "sandbox": "sandbox operations over a real directory (sandboxRoot)",
    "plan-file": "the planFile allowance on Project Plan turns",
    "paired-executor": "the paired-computer executor",
    "file-tools": "core Read/Write/Edit over the sandbox, with the read-before-write guard",
    "mutation-queue": "queued Write/Edit (queue_call / run_queued)",
    "bash": "core Bash under the non-destructive boundary",
    "diagnostics": "the cache-diagnostics projection",
}

ERROR_KINDS = ("spec", "manifest", "load", "sandbox", "unsupported", "unknown-session")


def error(kind: str, message: str, *, rule: str | None = None, subject: str | None = None) -> JSON:
    """The structured error an adapter method returns for input it refuses."""
    return {"error": {"kind": kind, "message": message, "rule": rule, "subject": subject}}


@runtime_checkable
class HostAdapter(Protocol):
    """What a host implementer writes. See docs/host-implementers.md for a worked example."""

    def info(self) -> JSON:
        """``{"name", "version", "capabilities": [names from CAPABILITIES]}``."""

    def reset(self) -> None:
        """Forget everything: a fresh host with no plugins, default policies and no sessions."""

    def install_plugin(self, plugin: JSON) -> JSON:
        """Install a scripted plugin. ``{"plugin", "accepted", "refused": [{tool, rule, message}],
        "findings": [{rule, message, tool}]}`` or an error (kind ``manifest`` or ``load``)."""

    def set_policy(self, account: str, changes: JSON) -> JSON:
        """Patch an account's live policy: ``admin``, ``owner``, ``projectIds``, ``pluginGrants``,
        ``deny``, ``roots``. Returns the policy now in force."""

    def open_session(self, spec: JSON) -> JSON:
        """``{"session": id}`` or an error (kind ``spec``)."""

    def compose(self, session: str) -> JSON:
        """``{"catalog": [{name, deferred}], "tools": [{name, description, parameters}],
        "payload": {...}, "diagnostics": {...}, "modeDirective": str | None}``."""

    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> JSON:
        """One model tool call: ``{"content", "isError", "shown", "handlerRan", "journal", "details",
        "refusal", "transport", "hooksRan", "observations", "modelResult"}``."""

    def queue_call(self, session: str, tool: str, arguments: Any) -> JSON:
        """Queue a host Write/Edit without running it: ``{"ticket": str}``."""

    def run_queued(self, session: str) -> JSON:
        """Run the session's queued mutations: ``{"outcomes": [call outcome, ...]}``."""

    def current_access(self, session: str) -> JSON:
        """The access descriptor a tool of this session would read now."""

    def current_identity(self, session: str) -> JSON:
        """The identity a tool of this session would read now."""

    def delegate(self, session: str, request: JSON) -> JSON:
        """Delegate a child: ``request`` is ``{"readOnly": bool, "requested": {access fields plugin
        code asked for}}``; returns ``{"session": child id}``."""

    def sandbox(self, session: str, op: JSON) -> JSON:
        """A sandbox operation ``{"kind", "path", "dest"?, "content"?, "executor"?}`` under the
        session's live access: ``{"admitted", "reason", "rule", "scope"}`` or an error (kind
        ``sandbox``) for a path or operation that cannot be understood."""

    def close(self) -> None:
        """Release the host (processes, temporary files)."""
