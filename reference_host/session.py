"""Sessions: access at call time, the call pipeline, delegation and the sandbox.

The call pipeline runs, in order (REG-6): tool lookup (SCOPE-2), deferral, the host permission
boundary, plan-mode policy (PLAN-2/3), plugin grant and deny-list (GRANT-1), applicable hooks, and
argument validation for internal tools; a refusal at any stage means the handler never runs.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import jsonschema

from .access import (
    READ_ONLY_CHILD_HOST_TOOLS,
    AccessDescriptor,
    Ceiling,
    Identity,
    PolicySource,
    TurnRestrictions,
    child_restrictions,
    evaluate_access,
    live_identity,
)
from .asyncutil import CallTimeout, run_bounded
from .composition import PLAN_DIRECTIVE, Composition, SessionView, advertised_definition, compose_session, in_scope
from .context import CallContext, current_call
from .core_tools import CORE_READ_ONLY, PLAN_DEFAULTS, share_image_choice
from .errors import SessionSpecError
from .registry import CORE_PLUGIN, Registration, Registry
from .sandbox import FileTools, Sandbox, SandboxAccess, SandboxOp, SandboxResult
from .schemas import REASON_EXCLUDED
from .session_spec import SessionSpec
from .tools import result_problems, text_result
from .transport import is_transport_failure
from .workspace import Workspace, as_tool_result, run_workspace_tool


@dataclass
class CallOutcome:
    """What one call produced, host side; :meth:`model_result` is what the model receives."""

    tool: str
    call_id: str
    content: list[dict[str, Any]]
    is_error: bool
    shown: bool
    handler_ran: bool
    journal: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)
    refusal: dict[str, Any] | None = None
    transport: bool = False
    hooks_ran: list[str] = field(default_factory=list)
    observations: list[dict[str, Any]] = field(default_factory=list)

    def model_result(self) -> dict[str, Any]:
        """REG-4: the model gets content and the error flag, never details."""
        return {"type": "tool_result", "tool": self.tool, "callId": self.call_id, "content": self.content,
                "isError": self.is_error}

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "callId": self.call_id,
            "content": self.content,
            "isError": self.is_error,
            "shown": self.shown,
            "handlerRan": self.handler_ran,
            "journal": self.journal,
            "details": self.details,
            "refusal": self.refusal,
            "transport": self.transport,
            "hooksRan": self.hooks_ran,
            "observations": self.observations,
            "modelResult": self.model_result(),
        }


@dataclass
class _Gate:
    """One call on its way through the pre-handler stages."""

    reg: Registration
    tool: str
    call_id: str
    args: Any
    journal: dict[str, Any]
    hooks_ran: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)


class SessionHost(Protocol):
    """What a session needs of its host; the host hands itself in, the session never imports it."""

    registry: Registry
    policies: PolicySource
    call_timeout: float

    def set_policy(self, account: str, changes: Mapping[str, Any]) -> dict[str, Any]: ...

    def adopt(self, session: Session) -> None: ...


def _text(outcome_text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": outcome_text}]


class Session:
    """One conversation turn context: its spec, captured ceiling, restrictions and state.

    The host hands in the workspace (root, sandbox, file tools); a delegated child shares it."""

    _ids = itertools.count(1)

    def __init__(
        self,
        host: SessionHost,
        spec: SessionSpec,
        restrictions: TurnRestrictions,
        ceiling: Ceiling,
        workspace: Workspace,
        parent: Session | None = None,
    ) -> None:
        self.id = f"s{next(Session._ids)}"
        self.host = host
        self.spec = spec
        self.restrictions = restrictions
        self.ceiling = ceiling
        self.parent = parent
        self.loaded: set[str] = set()
        self.journal: list[dict[str, Any]] = []
        self.observations: list[dict[str, Any]] = []
        self._call_ids = itertools.count(1)
        self.workspace = workspace
        self._queue: list[tuple[str, Any]] = []

    # -- identity and access, read fresh every time (ACCESS-1..5) ------------------------------------
    @property
    def account(self) -> str:
        return self.spec.identity.account_user_id

    def current_access(self) -> AccessDescriptor:
        live = self.host.policies.evaluate(self.account)
        return evaluate_access(live, self.ceiling, self.restrictions, self.spec.identity.user_id, self.spec.project_id)

    def current_identity(self) -> Identity:
        return live_identity(self.spec.identity, self.host.policies.evaluate(self.account))

    def current_account_user_id(self) -> str:
        return self.account

    # -- composition ----------------------------------------------------------------------------------
    def view(self) -> SessionView:
        directive = PLAN_DIRECTIVE if self.restrictions.plan_turn else None
        return SessionView(
            account=self.account,
            project_id=self.spec.project_id,
            platform=self.spec.platform,
            deferral_enabled=self.spec.deferral_enabled,
            admin_overrides=self.spec.admin_overrides,
            loaded=frozenset(self.loaded),
            read_only_child=self.restrictions.delegated_read_only,
            mode_directive=directive,
        )

    def compose(self) -> Composition:
        return compose_session(self.host.registry, self.view())

    # -- calls ----------------------------------------------------------------------------------------
    def _lookup(self, name: str) -> Registration | None:
        reg = self.host.registry.get(name)
        if reg is None or not in_scope(reg, self.view()):
            return None
        if self.restrictions.delegated_read_only and not (
            reg.read_only or (reg.plugin == CORE_PLUGIN and name in READ_ONLY_CHILD_HOST_TOOLS)
        ):
            return None  # RO-5; Bash stays, under the non-destructive boundary (PLANFILE-6)
        return reg

    def _refused(
        self, tool: str, call_id: str, journal: dict[str, Any], stage: str, rule: str, message: str,
        hooks_ran: list[str] | None = None,
    ) -> CallOutcome:
        return CallOutcome(
            tool=tool, call_id=call_id, content=_text(message), is_error=False, shown=True, handler_ran=False,
            journal=journal, refusal={"stage": stage, "rule": rule, "message": message}, hooks_ran=hooks_ran or [],
        )

    #: REG-6: the pre-handler stages, in order. The first that refuses wins and nothing after it
    #: runs (a hook never runs for a call the grant refused; the handler never runs for a refusal).
    STAGES: tuple[str, ...] = ("boundary", "plan", "grant", "hook", "validation")

    def _gate(self, reg: Registration | None, tool: str, call_id: str, args: Any, journal: dict[str, Any]):
        """Run the pre-handler stages; returns a refusal outcome, or the arguments for the handler."""
        if reg is None:
            return self._refused(tool, call_id, journal, "lookup", "SCOPE-2",
                                 f"Unknown tool {tool!r}: it is not available in this session.")
        view = self.view()
        if reg.deferred and view.deferral_enabled and tool not in view.admin_overrides and tool not in self.loaded:
            return self._refused(tool, call_id, journal, "deferral", "MANIFEST-2",
                                 f"Tool {tool!r} is deferred: load it with ToolSearch (query 'select:{tool}') first.")
        gate = _Gate(reg=reg, tool=tool, call_id=call_id, args=args, journal=journal)
        for stage in self.STAGES:
            refusal = getattr(self, f"_stage_{stage}")(gate)
            if refusal is not None:
                return refusal
        return gate.params, gate.hooks_ran

    def _stage_boundary(self, gate: _Gate) -> CallOutcome | None:
        if gate.tool in self.spec.permission_deny:
            return self._refused(gate.tool, gate.call_id, gate.journal, "boundary", "REG-6",
                                 f"Tool {gate.tool!r} is blocked by the host permission boundary.")
        return None

    def _stage_plan(self, gate: _Gate) -> CallOutcome | None:
        reg = gate.reg
        if self.restrictions.plan_turn and (reg.external or not self._plan_admits(reg)):
            rule = "PLAN-3" if reg.external else "PLAN-2"
            return self._refused(gate.tool, gate.call_id, gate.journal, "plan", rule,
                                 f"Plan mode runs only read-only tools; {gate.tool!r} is not in the read-only set.")
        return None

    def _stage_grant(self, gate: _Gate) -> CallOutcome | None:
        reg, tool = gate.reg, gate.tool
        # GRANT-1: the live policy, read now, so a change applies to the very next call.
        live = self.host.policies.evaluate(self.account)
        if reg.plugin != CORE_PLUGIN and not live.grants_plugin(reg.plugin):
            return self._refused(tool, gate.call_id, gate.journal, "grant", "GRANT-1",
                                 f"This account has no grant for plugin {reg.plugin!r}, so {tool!r} cannot run.")
        if tool in live.deny:
            return self._refused(tool, gate.call_id, gate.journal, "grant", "GRANT-1",
                                 f"Tool {tool!r} is on this account's deny-list.")
        return None

    def _stage_hook(self, gate: _Gate) -> CallOutcome | None:
        for hook in self.spec.hooks:
            if hook.matches(gate.tool):
                gate.hooks_ran.append(hook.tool)
                if hook.decision == "deny":
                    return self._refused(gate.tool, gate.call_id, gate.journal, "hook", "REG-6",
                                         hook.message or f"A hook refused the call to {gate.tool!r}.", gate.hooks_ran)
        return None

    def _stage_validation(self, gate: _Gate) -> CallOutcome | None:
        reg, tool, args = gate.reg, gate.tool, gate.args
        if not isinstance(args, Mapping):
            return self._refused(tool, gate.call_id, gate.journal, "validation", "REG-6",
                                 f"Arguments for {tool!r} must be an object, got {type(args).__name__}.",
                                 gate.hooks_ran)
        if reg.external:
            gate.params = copy.deepcopy(dict(args))  # CAP-4: the owner validates, as sent
            return None
        advertised = advertised_definition(reg)["parameters"]
        errors = sorted(jsonschema.Draft202012Validator(advertised).iter_errors(dict(args)), key=str)
        if errors:
            props = ", ".join(sorted((reg.tool.parameters.get("properties") or {}).keys())) or "(none)"
            detail = "; ".join(e.message for e in errors[:3])
            return self._refused(
                tool,
                gate.call_id,
                gate.journal,
                "validation",
                "REG-6",
                f"Invalid arguments for {tool!r}: {detail}. Its parameters are: {props}.",
                gate.hooks_ran,
            )
        # A deep copy, so nothing the handler does to its params reaches the journal (NAME-7).
        params = copy.deepcopy(dict(args))
        if tool not in REASON_EXCLUDED and "reason" not in (reg.tool.parameters.get("properties") or {}):
            params.pop("reason", None)  # REASON-4: the host consumes reason
        gate.params = params
        return None

    def _plan_admits(self, reg: Registration) -> bool:
        return reg.name in CORE_READ_ONLY or reg.name in PLAN_DEFAULTS or reg.plan_admitted

    def call(self, tool: str, args: Any, call_id: str | None = None, *, cwd: str | None = None) -> CallOutcome:
        """Run one model tool call through the whole pipeline."""
        call_id = call_id or f"{self.id}-c{next(self._call_ids)}"
        journal = {"callId": call_id, "tool": tool, "arguments": copy.deepcopy(args)}  # NAME-7
        self.journal.append(journal)
        reg = self._lookup(tool)
        gated = self._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, CallOutcome):
            return gated
        params, hooks_ran = gated
        assert reg is not None
        return self._run_handler(reg, call_id, params, journal, hooks_ran, cwd)

    def _run_handler(
        self,
        reg: Registration,
        call_id: str,
        params: dict[str, Any],
        journal: dict[str, Any],
        hooks_ran: list[str],
        cwd: str | None,
    ) -> CallOutcome:
        observations: list[dict[str, Any]] = []
        token = current_call.set(CallContext(self, call_id, reg.name, cwd))
        mark = len(self.observations)
        try:
            result = run_bounded(lambda: reg.tool.execute(call_id, params), self.host.call_timeout)
            error: BaseException | None = None
        except CallTimeout as exc:
            result, error = None, exc
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - ERR-1: every throw becomes an is_error result
            # BaseException too: a handler's asyncio.CancelledError or SystemExit is still the
            # plugin's failure, never a reason for the host to stop.
            result, error = None, exc
        finally:
            current_call.reset(token)
            observations = self.observations[mark:]
        base = {
            "tool": reg.name,
            "call_id": call_id,
            "handler_ran": True,
            "journal": journal,
            "hooks_ran": hooks_ran,
            "observations": observations,
        }
        if error is not None:
            message = (
                f"{type(error).__name__}: {error}"
                if not isinstance(error, CallTimeout)
                else (f"Tool {reg.name!r} {error}; the call was abandoned.")
            )
            return CallOutcome(
                content=_text(message), is_error=True, shown=True, transport=is_transport_failure(error), **base
            )
        problems = result_problems(result)
        if problems:
            return CallOutcome(
                content=_text(f"Tool {reg.name!r} returned a malformed result [REG-3]: " + "; ".join(problems)),
                is_error=True,
                shown=True,
                **base,
            )
        return CallOutcome(
            content=copy.deepcopy(result["content"]),
            is_error=False,
            shown=reg.show_output,
            details=copy.deepcopy(dict(result["details"])),
            **base,
        )

    # -- the queued host mutations (ACCESS-6) --------------------------------------------------------
    def queue_call(self, tool: str, args: Any) -> str:
        """Queue a host Write/Edit. The pipeline stages run now; access and the anchored path are
        rechecked inside the mutation queue when the entry runs (ACCESS-6)."""
        if tool not in ("Write", "Edit"):
            raise SessionSpecError(f"only Write and Edit can be queued, not {tool!r}", rule="ACCESS-6")
        call_id = f"{self.id}-q{next(self._call_ids)}"
        journal = {"callId": call_id, "tool": tool, "arguments": copy.deepcopy(args)}
        self.journal.append(journal)
        reg = self._lookup(tool)
        gated = self._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, CallOutcome):
            self._queue.append((call_id, gated))
            return call_id
        params, hooks_ran = gated
        tools = self.file_tools()
        if tool == "Write":
            ticket = tools.enqueue_write(
                self.sandbox_access, params["file_path"], params["content"], self.read_state_key()
            )
        else:
            ticket = tools.enqueue_edit(
                self.sandbox_access,
                params["file_path"],
                params["old_string"],
                params["new_string"],
                self.read_state_key(),
            )
        self._queue.append((call_id, (ticket, journal, hooks_ran)))
        return call_id

    def run_queued(self) -> list[CallOutcome]:
        """Run the mutation queue, then report this session's queued calls in order."""
        self.file_tools().queue.drain()
        queued, self._queue = self._queue, []
        outcomes: list[CallOutcome] = []
        for call_id, entry in queued:
            if isinstance(entry, CallOutcome):
                outcomes.append(entry)
                continue
            ticket, journal, hooks_ran = entry
            if ticket.error is not None:
                outcomes.append(
                    CallOutcome(
                        tool=journal["tool"],
                        call_id=call_id,
                        content=_text(f"{type(ticket.error).__name__}: {ticket.error}"),
                        is_error=True,
                        shown=True,
                        handler_ran=True,
                        journal=journal,
                        hooks_ran=hooks_ran,
                    )
                )
                continue
            result = as_tool_result(ticket.result or {"ok": False, "text": "the queued entry did not run"})
            refusal = None
            if not result["details"].get("ok"):
                rule = result["details"].get("rule") or "ACCESS-6"
                refusal = {"stage": "queue", "rule": rule, "message": result["content"][0]["text"]}
            outcomes.append(
                CallOutcome(
                    tool=journal["tool"],
                    call_id=call_id,
                    content=result["content"],
                    is_error=False,
                    shown=False,
                    handler_ran=True,
                    journal=journal,
                    details=result["details"],
                    refusal=refusal,
                    hooks_ran=hooks_ran,
                )
            )
        return outcomes

    def file_tools(self) -> FileTools:
        return self.workspace.file_tools()

    def read_state_key(self) -> str:
        # A child reads and writes under its own key: a parent's reads do not license its writes.
        return self.id

    # -- delegation (DELEG-1..3, PLANFILE-5) ----------------------------------------------------------
    def delegate(self, *, read_only: bool = True, requested: Mapping[str, Any] | None = None) -> Session:
        restrictions = child_restrictions(self.restrictions, read_only=read_only, requested=requested or {})
        spec = SessionSpec(
            identity=self.spec.identity,
            project_id=self.spec.project_id,
            platform=self.spec.platform,
            conversation=self.spec.conversation,
            mode="build",
            deferral_enabled=self.spec.deferral_enabled,
            admin_overrides=self.spec.admin_overrides,
            permission_deny=self.spec.permission_deny,
            hooks=self.spec.hooks,
            sandbox_root=self.sandbox_root(),
        )
        child = Session(self.host, spec, restrictions, self.ceiling, self.workspace, parent=self)
        self.host.adopt(child)
        return child

    # -- core tools and the sandbox -------------------------------------------------------------------
    def sandbox_root(self) -> Path:
        return self.workspace.root()

    def sandbox(self) -> Sandbox:
        """The sandbox over this session's root (shared with its children)."""
        return self.workspace.sandbox()

    def sandbox_access(self) -> SandboxAccess:
        """A fresh :class:`SandboxAccess` from the live descriptor (ACCESS-5, ACCESS-8)."""
        access = self.current_access()
        return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file, roots=access.roots)

    def sandbox_op(self, op: Mapping[str, Any]) -> SandboxResult:
        """Run one sandbox operation under the access in force right now."""
        if not isinstance(op, Mapping):
            raise SessionSpecError(f"a sandbox operation must be an object, got {type(op).__name__}")
        unknown = sorted(set(op) - {"kind", "path", "dest", "content", "executor"})
        if unknown:
            raise SessionSpecError(f"sandbox operation has unknown field(s) {unknown}")
        content = op.get("content", "")
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        parsed = SandboxOp(
            kind=op.get("kind"),
            path=op.get("path"),
            dest=op.get("dest"),
            content=data,
            executor=op.get("executor", "sandbox"),
        )
        return self.sandbox().perform(parsed, self.sandbox_access())

    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if name == "ToolSearch":
            return self._tool_search(str(params.get("query", "")))
        if name == "ShareImage":
            refusal = share_image_choice(params)
            if refusal is not None:
                return refusal
        return run_workspace_tool(
            self.workspace,
            name,
            params,
            access=self.sandbox_access,
            read_state_key=self.read_state_key(),
            timeout=self.host.call_timeout,
        )

    def _tool_search(self, query: str) -> dict[str, Any]:
        """The loader for deferred tools (PLAN-4, EXT-4)."""
        view = self.view()
        candidates = [entry["name"] for entry in self.compose().catalog if entry["deferred"]]
        if query.startswith("select:"):
            wanted = {n.strip() for n in query[len("select:") :].split(",") if n.strip()}
            chosen = [n for n in candidates if n in wanted]
        else:
            words = [w for w in re.split(r"\s+", query.lower()) if w]
            chosen = []
            for name in candidates:
                reg = self.host.registry.get(name)
                # The registry's originals (CAP-3): the whole description and every parameter name.
                properties = (reg.tool.parameters.get("properties") or {}) if reg else {}
                haystack = f"{name} {reg.tool.description if reg else ''} {' '.join(properties)}".lower()
                if words and all(w in haystack for w in words):
                    chosen.append(name)
        del view
        self.loaded.update(chosen)
        if not chosen:
            return text_result(f"No deferred tool matches {query!r}.")
        return text_result("Loaded: " + ", ".join(chosen), {"loaded": chosen})
