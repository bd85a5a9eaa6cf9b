"""aelix (aelix-coding-agent, a Python host with pi's extension API) under the conformance kit.

An in-process adapter on :class:`pytest_toolconformance.UnsupportedHost`, written from the kit's
public docs (docs/host-implementers.md, "A Python host"): every test plugin becomes a real aelix
extension (a ``setup(aelix)`` factory whose tools are aelix ``AgentTool`` objects, built by the kit's
step interpreter), loaded by aelix's own ``load_extensions`` in install order; a session is an aelix
``AgentHarness`` over those extensions with a faux model (a ``stream_fn`` that answers from a script,
so nothing leaves the machine); ``compose`` is the request the model gets, ``call`` a faux tool call
run through aelix's whole loop (argument validation, ``tool_call`` hooks, ``execute``).

    python -m pytest --toolconformance --toolconformance-host=hosts.aelix.adapter:factory \\
        --toolconformance-deviations=hosts/aelix/deviations.toml

(run by the interpreter hosts/aelix/setup made, which has aelix and the kit). aelix has no accounts,
policies, scopes, plan mode, sandbox, manifest or transport tag: the capabilities declared are the ones
it has, and deviations.toml says where it differs from the seam.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any, TypeVar

from aelix_agent_core.harness.core import AgentHarness, AgentHarnessOptions
from aelix_agent_core.harness.hooks import ToolCallResult
from aelix_agent_core.types import AgentTool
from aelix_ai.messages import AssistantMessage, ImageContent, TextContent, ToolCallContent, ToolResultMessage
from aelix_ai.models import get_model
from aelix_ai.providers import _anthropic_transforms as anthropic
from aelix_ai.providers import openai_responses
from aelix_ai.streaming import AssistantDoneEvent, Context, Model
from aelix_ai.tools import ToolResult
from aelix_coding_agent.extensions.loader import load_extensions

from pytest_toolconformance import UnsupportedHost
from pytest_toolconformance.host.contract import error
from pytest_toolconformance.steps import install_scripted_host, register_scripted, take_call_record

T = TypeVar("T")
JSON = dict[str, Any]
FAUX = Model(id="toolconformance-faux", provider="toolconformance-faux", api="toolconformance-faux")


def _content(items: Any) -> list[TextContent | ImageContent]:
    """A scripted result's content items as aelix content blocks."""
    blocks: list[TextContent | ImageContent] = []
    for item in items or []:
        if isinstance(item, Mapping) and item.get("type") == "image":
            blocks.append(ImageContent(data=str(item.get("data", "")), mime_type=str(item.get("mimeType", ""))))
        elif isinstance(item, Mapping):
            blocks.append(TextContent(text=str(item.get("text", ""))))
    return blocks


def _items(blocks: Any) -> list[JSON]:
    """aelix content blocks as the contract's content items."""
    items: list[JSON] = []
    for block in blocks or []:
        if isinstance(block, ImageContent):
            items.append({"type": "image", "data": block.data, "mimeType": block.mime_type})
        elif isinstance(block, TextContent):
            items.append({"type": "text", "text": block.text})
    return items


def _agent_tool(definition: dict[str, Any]) -> AgentTool:
    """The kit's scripted tool as an aelix AgentTool: ``execute(args, ctx)`` runs the steps."""
    scripted = definition["execute"]

    async def execute(args: dict[str, Any], ctx: Any) -> ToolResult:
        result = await scripted(ctx.tool_call_id, args)
        if not isinstance(result, Mapping):
            return ToolResult(content=[TextContent(text=str(result))])
        return ToolResult(content=_content(result.get("content")), details=result.get("details"))

    return AgentTool(name=definition["name"], description=definition["description"],
                     parameters=definition["parameters"], execute=execute)


def _setup(document: Mapping[str, Any]) -> Callable[[Any], Awaitable[None]]:
    """A scripted plugin as an aelix extension factory (``setup(aelix)``)."""

    async def setup(aelix: Any) -> None:
        def register_tool(tool: AgentTool, options: Mapping[str, Any] | None = None) -> None:
            # aelix's register_tool(tool) has no options: what the document gives has nowhere to go (as
            # in pi, whose registerTool ignores a second argument).
            aelix.register_tool(tool)

        await register_scripted(document, register_tool=register_tool, define_tool=_agent_tool, ctx=aelix)

    setup.__name__ = f"setup_{document['name']}"
    return setup


def _hooks(hooks: list[Mapping[str, Any]], ran: list[JSON]) -> Callable[[Any], None]:
    """A session's hooks as an aelix extension with a real ``tool_call`` handler."""

    def setup(aelix: Any) -> None:
        def on_tool_call(event: Any, *_: Any) -> ToolCallResult | None:
            for hook in hooks:
                if hook.get("tool") not in ("*", event.tool_name):
                    continue
                ran.append({"tool": event.tool_name, "decision": hook.get("decision", "allow")})
                if hook.get("decision") == "deny":
                    reason = hook.get("message") or f"blocked by a hook on {hook['tool']}"
                    return ToolCallResult(block=True, reason=reason)
            return None

        aelix.on("tool_call", on_tool_call)

    return setup


@dataclass
class _Session:
    harness: AgentHarness
    hooks: list[Mapping[str, Any]]
    hooks_ran: list[JSON]
    seen: list[Context] = field(default_factory=list)
    script: list[AssistantMessage] = field(default_factory=list)
    #: Each call's ToolResult as the harness's tool_execution_end event carried it (with its details,
    #: which aelix keeps out of the ToolResultMessage the model gets).
    results: dict[str, ToolResult] = field(default_factory=dict)

    def listen(self, event: Any) -> None:
        if getattr(event, "type", None) == "tool_execution_end":
            self.results[event.tool_call_id] = event.result


class AelixAdapter(UnsupportedHost):
    """aelix's operations mapped onto the adapter contract, in process."""

    name = "aelix"
    version = version("aelix-coding-agent")

    def __init__(self, timeout: float = 10.0) -> None:
        # aelix has no tool timeout: a call that outlasts this is answered as timed out (like pi's adapter).
        self.bound = timeout * 0.4
        self.loop = asyncio.new_event_loop()
        self.plugins: list[Mapping[str, Any]] = []
        self.sessions: dict[str, _Session] = {}
        self.ids = itertools.count(1)
        install_scripted_host()  # aelix gives plugin code nothing of the seam's identity or access

    def _run(self, coroutine: Awaitable[T], bound: float | None = None) -> T:
        return self.loop.run_until_complete(asyncio.wait_for(coroutine, bound) if bound else coroutine)

    def info(self) -> JSON:
        # aelix keeps the first extension's tool of a name: its harness builds the registry in load
        # order and skips a name it already holds (aelix_agent_core/harness/core.py, _rebuild_tool_registry).
        return {"name": self.name, "version": self.version, "collisions": "first-wins",
                "capabilities": ["registration", "composition", "calls", "hooks"]}

    def reset(self) -> None:
        self.plugins, self.sessions = [], {}

    def close(self) -> None:
        self.sessions.clear()
        self.loop.close()

    async def _harness(self, hooks: list[Mapping[str, Any]], ran: list[JSON], session: _Session | None,
                       ) -> tuple[AgentHarness, Any]:
        factories: list[Any] = [_setup(doc) for doc in self.plugins]
        if hooks:
            factories.append(_hooks(hooks, ran))
        loaded = await load_extensions(factories)

        async def faux(model: Model, context: Context, options: Any) -> Any:
            if session is not None:
                session.seen.append(context)
                message = session.script.pop(0) if session.script else AssistantMessage(
                    content=[TextContent(text="done")], stop_reason="stop")
            else:
                message = AssistantMessage(content=[TextContent(text="done")], stop_reason="stop")
            yield AssistantDoneEvent(reason="toolUse" if message.stop_reason == "toolUse" else "stop", message=message)

        harness = AgentHarness(AgentHarnessOptions(model=FAUX, extensions=loaded.extensions, runtime=loaded.runtime,
                                                   stream_fn=faux, tool_execution="sequential"))
        if session is not None:
            harness.subscribe(session.listen)
        return harness, loaded

    def install_plugin(self, plugin: JSON) -> JSON:
        self.plugins.append(plugin)
        index = len(self.plugins) - 1
        harness, loaded = self._run(self._harness([], [], None))
        failed = [e for e in loaded.errors if e.path == f"setup_{plugin['name']}" or plugin["name"] in e.path]
        if failed or len(loaded.extensions) < len(self.plugins):
            self.plugins.pop()
            reason = "; ".join(e.error for e in failed) or "aelix loaded no extension"
            return error("load", f"aelix did not load plugin {plugin['name']}: {reason}", subject=plugin["name"])
        own = loaded.extensions[index].tools
        registry = {t.name: t for t in harness.state.tools}
        names = list(dict.fromkeys(t["name"] for t in plugin.get("tools") or []))
        accepted = [n for n in names if n in own and registry.get(n) is own[n]]
        refused = [{"tool": n, "message": f"aelix's tool registry holds {n} from another extension, not this one"
                    if n in registry else f"aelix's tool registry has no {n}"} for n in names if n not in accepted]
        return {"plugin": plugin["name"], "accepted": accepted, "refused": refused, "findings": []}

    def open_session(self, spec: JSON) -> JSON:
        hooks = list(spec.get("hooks") or []) if isinstance(spec, Mapping) else []
        ran: list[JSON] = []
        session = _Session(harness=None, hooks=hooks, hooks_ran=ran)  # type: ignore[arg-type]
        session.harness, _ = self._run(self._harness(hooks, ran, session))
        sid = f"s{next(self.ids)}"
        self.sessions[sid] = session
        return {"session": sid}

    def _session(self, sid: str) -> _Session:
        if sid not in self.sessions:
            raise KeyError(sid)
        return self.sessions[sid]

    def compose(self, session: str) -> JSON:
        if session not in self.sessions:
            return error("unknown-session", f"aelix adapter: no session {session!r}")
        s = self.sessions[session]
        s.seen.clear()
        self._run(s.harness.prompt("compose"))
        context = s.seen[0]
        tools = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in context.tools]
        payload = openai_responses.build_params(get_model("openai", "gpt-5"), context, None)
        return {"catalog": [{"name": t.name, "deferred": False} for t in s.harness.state.tools], "tools": tools,
                "payload": payload, "diagnostics": {}, "modeDirective": None}

    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> JSON:
        if session not in self.sessions:
            return error("unknown-session", f"aelix adapter: no session {session!r}")
        s = self.sessions[session]
        cid = call_id or f"call-{next(self.ids)}"
        before = len(s.hooks_ran)
        s.seen.clear()
        s.script[:] = [AssistantMessage(content=[ToolCallContent(tool_call_id=cid, tool_name=tool,
                                                                 input=arguments)], stop_reason="toolUse")]
        try:
            self._run(s.harness.prompt(f"call {tool}"), self.bound)
        except TimeoutError:
            return self._timed_out(session, s, tool, cid, arguments, before)
        except Exception as exc:  # noqa: BLE001 - aelix's loop raised out of prompt(): the call's outcome
            self._renew(session, s)
            record = take_call_record(cid)
            text = f"aelix raised out of the turn: {type(exc).__name__}: {exc}"
            return {"tool": tool, "callId": cid, "content": [{"type": "text", "text": text}], "isError": True,
                    "shown": True, "handlerRan": record["ran"], "journal": None, "details": {},
                    "refusal": None if record["ran"] else {"stage": "pipeline", "rule": None, "message": text},
                    "transport": False, "hooksRan": [h["tool"] for h in s.hooks_ran[before:]],
                    "observations": record["observations"], "modelResult": None}
        return self._outcome(s, tool, cid, before)

    def _renew(self, session: str, s: _Session) -> None:
        """Give the session id a fresh harness over the same plugins and hooks."""
        fresh = _Session(harness=None, hooks=s.hooks, hooks_ran=s.hooks_ran)  # type: ignore[arg-type]
        fresh.harness, _ = self._run(self._harness(s.hooks, s.hooks_ran, fresh))
        self.sessions[session] = fresh

    def _timed_out(self, session: str, s: _Session, tool: str, cid: str, arguments: Any, before: int) -> JSON:
        # The harness is stuck in the tool: the session id gets a fresh harness over the same plugins.
        self._renew(session, s)
        record = take_call_record(cid)
        text = f"aelix did not finish the call of {tool} within {self.bound:g} s"
        content = [{"type": "text", "text": text}]
        return {"tool": tool, "callId": cid, "content": content, "isError": True, "shown": True,
                "handlerRan": record["ran"], "journal": {"callId": cid, "tool": tool, "arguments": arguments},
                "details": {}, "refusal": None, "transport": False, "timedOut": True,
                "hooksRan": [h["tool"] for h in s.hooks_ran[before:]], "observations": record["observations"],
                "modelResult": {"type": "tool_result", "tool": tool, "callId": cid, "content": content,
                                "isError": True}}

    def _outcome(self, s: _Session, tool: str, cid: str, before: int) -> JSON:
        record = take_call_record(cid)
        nxt = s.seen[1] if len(s.seen) > 1 else None
        messages = list(nxt.messages) if nxt is not None else []
        result = next((m for m in reversed(messages) if isinstance(m, ToolResultMessage) and m.tool_call_id == cid),
                      None)
        sent = next((c for m in messages if isinstance(m, AssistantMessage) for c in m.content
                     if isinstance(c, ToolCallContent) and c.tool_call_id == cid), None)
        content = _items(result.content) if result is not None else [
            {"type": "text", "text": "aelix returned no tool result"}]
        is_error = result.is_error if result is not None else True
        hooks_ran = s.hooks_ran[before:]
        refusal = None
        if not record["ran"] and is_error:
            text = " ".join(c.get("text", "") for c in content)
            stage = ("hook" if any(h["decision"] == "deny" for h in hooks_ran) else
                     "lookup" if "not found" in text.lower() or "unknown tool" in text.lower() else
                     "validation" if "validat" in text.lower() else "pipeline")
            refusal = {"stage": stage, "rule": None, "message": text}
        model_result = None
        if nxt is not None:
            # What the model receives: the tool_result block of aelix's Anthropic request for the next turn.
            params = anthropic.build_params(get_model("anthropic", "claude-sonnet-4-5"), nxt.system_prompt,
                                            list(nxt.messages), list(nxt.tools))
            block = next((b for m in reversed(params.get("messages") or []) if isinstance(m.get("content"), list)
                          for b in m["content"] if isinstance(b, Mapping) and b.get("type") == "tool_result"
                          and b.get("tool_use_id") == cid), None)
            if block is not None:
                model_result = {"type": "tool_result", "tool": tool, "callId": cid,
                                "isError": bool(block.get("is_error")),
                                "content": _anthropic_items(block.get("content")), "block": block}
        return {"tool": tool, "callId": cid, "content": content, "isError": is_error, "shown": True,
                "handlerRan": record["ran"],
                "journal": ({"callId": sent.tool_call_id, "tool": sent.tool_name, "arguments": sent.input}
                            if sent else None),
                "details": _details(s.results.pop(cid, None)), "refusal": refusal, "transport": False,
                "hooksRan": [h["tool"] for h in hooks_ran], "observations": record["observations"],
                "modelResult": model_result}


def _details(result: ToolResult | None) -> Any:
    return result.details if result is not None and result.details is not None else {}


def _anthropic_items(content: Any) -> list[JSON]:
    """An Anthropic tool_result content (a string, or text and image blocks) as content items."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    items: list[JSON] = []
    for block in content or []:
        source = block.get("source") if isinstance(block, Mapping) else None
        if isinstance(block, Mapping) and block.get("type") == "image" and isinstance(source, Mapping):
            items.append({"type": "image", "data": source.get("data"), "mimeType": source.get("media_type")})
        elif isinstance(block, Mapping) and block.get("type") == "text":
            items.append({"type": "text", "text": block.get("text")})
    return items


def factory(timeout: float = 10.0) -> AelixAdapter:
    """``--toolconformance-host=hosts.aelix.adapter:factory``: the adapter, bounded by the run's timeout."""
    return AelixAdapter(timeout)
