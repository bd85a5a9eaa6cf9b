"""The scripted-plugin step interpreter for Python hosts (docs/host-implementers.md, scripted plugins).

The Python twin of ``host/js/steps.mjs``: a host implementer's adapter builds each scripted plugin
the kit sends (``install_plugin`` with a document) as a real plugin of its host, whose ``register``
and tool handlers run their steps here. The format is docs/adapter-contract.md's; the reference
host's own interpreter (``reference_host.scripted``) is the oracle this one is tested against.

What a step needs from the host (identity, access, the account, a live policy change, the transport
tag) comes from the plugin's own context where the host's plugin API offers it (the seam's
``ctx.current_identity()`` and friends), else from the operations the adapter installed with
:func:`install_scripted_host`. A host that offers neither gets ``{"op", "value": None,
"unavailable": "..."}`` observations: the check then sees what is missing.

::

    from pytest_toolconformance.steps import install_scripted_host, register_scripted, take_call_record

    install_scripted_host(policy=lambda account, changes, env: my_host.set_policy(account, changes))

    class ScriptedPlugin:                      # a plugin of my host, built from the kit's document
        def __init__(self, document): self.document = document
        async def register(self, ctx):
            await register_scripted(self.document, register_tool=ctx.register_tool, ctx=ctx)

    record = take_call_record(call_id)         # after a call: {"ran": bool, "observations": [...]}
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_host import delete_at, set_at, text_result
from reference_host import transport_probe as reference_probe


class ScriptedError(Exception):
    """The error a scripted ``throw`` (or ``throw_transport``) step raises."""


@dataclass
class Transport:
    """A host's transport tag (ERR-4, ERR-5): ``mark(error)`` tags and returns the error,
    ``is_tagged(value)`` recognises a tagged one."""

    mark: Callable[[BaseException], BaseException]
    is_tagged: Callable[[Any], bool]


@dataclass
class _Registry:
    ops: dict[str, Any] = field(default_factory=dict)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)


_REGISTRY = _Registry()


def install_scripted_host(
    *,
    identity: Callable[[Mapping[str, Any]], Any] | None = None,
    access: Callable[[Mapping[str, Any]], Any] | None = None,
    account: Callable[[Mapping[str, Any]], Any] | None = None,
    policy: Callable[[str, Mapping[str, Any], Mapping[str, Any]], Any] | None = None,
    transport: Transport | None = None,
    on_call: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Give steps the host operations its plugin context lacks. Each read takes the step's ``env``
    (``call_id``, ``tool``, ``ctx``); ``policy(account, changes, env)`` may be async; ``on_call(record)``
    is told when a handler starts (``call_id``, ``tool``, ``params``)."""
    _REGISTRY.ops = {"identity": identity, "access": access, "account": account, "policy": policy,
                     "transport": transport, "on_call": on_call}


def call_record(call_id: str) -> dict[str, Any]:
    """The record of the handler runs for ``call_id``: ``{"ran", "observations"}``, made on first use."""
    return _REGISTRY.calls.setdefault(call_id, {"ran": False, "observations": []})


def take_call_record(call_id: str) -> dict[str, Any]:
    """Take (and forget) what the handlers of ``call_id`` recorded."""
    record = call_record(call_id)
    del _REGISTRY.calls[call_id]
    return record


def sorted_json(value: Any) -> str:
    """JSON with sorted keys and Python's separators, so an echo reads the same from every host."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def transport_probe(transport: Transport | None) -> dict[str, bool]:
    """ERR-5 facts about the host's transport tag (all false without one)."""
    if transport is None:
        return dict.fromkeys(("returnsSameError", "taggedIsTransport", "plainIsTransport", "noneIsTransport",
                              "stringIsTransport", "objectIsTransport", "survivesRethrow"), False)
    return reference_probe(transport.mark, transport.is_tagged)


_READS = {"identity": "current_identity", "access": "current_access", "account": "current_account_user_id"}


def _read(env: Mapping[str, Any], op: str) -> tuple[Any, str | None]:
    # The seam's ctx method where the plugin context has it, else the adapter's operation.
    method = getattr(env.get("ctx"), _READS[op], None)
    if callable(method):
        return method(), None
    installed = _REGISTRY.ops.get(op)
    if callable(installed):
        return installed(env), None
    return None, f"the host's plugin context has no {_READS[op]}()"


def _transport_of(env: Mapping[str, Any]) -> Transport | None:
    found = env.get("transport") or _REGISTRY.ops.get("transport")
    return found if isinstance(found, Transport) else None


async def run_steps(steps: list[Mapping[str, Any]] | None, params: Any, env: Mapping[str, Any] | None = None) -> Any:
    """Run register or handler steps; returns the tool result. ``env``: ``call_id``, ``tool``, ``ctx``,
    ``transport`` (each optional)."""
    env = env or {}
    record = call_record(env["call_id"]) if env.get("call_id") is not None else None

    def observe(op: str, value: Any, **extra: Any) -> None:
        if record is not None:
            record["observations"].append({"op": op, "value": value, **extra})

    details: dict[str, Any] = {}
    for step in steps or []:
        op = step.get("op")
        if op == "text":
            return text_result(str(step.get("text", "")), details)
        if op == "details":
            details.update(step.get("details") or {})
        elif op == "echo":
            observe("params", json.loads(json.dumps(params)))
            return text_result(sorted_json(params), details)
        elif op == "mutate":
            if isinstance(params, (dict, list)):
                for key in step.get("delete") or []:
                    delete_at(params, key)
                for key, value in (step.get("set") or {}).items():
                    set_at(params, key, value)
        elif op == "throw":
            raise ScriptedError(str(step.get("message", "scripted failure")))
        elif op == "throw_transport":
            error = ScriptedError(str(step.get("message", "connect ECONNREFUSED")))
            transport = _transport_of(env)
            raise transport.mark(error) if transport is not None else error
        elif op == "sleep":
            await asyncio.sleep(float(step.get("seconds", 0)))
        elif op == "hang":
            await asyncio.Event().wait()
        elif op in _READS:
            value, unavailable = _read(env, op)
            observe(op, value, **({"unavailable": unavailable} if unavailable else {}))
        elif op == "policy":
            policy = _REGISTRY.ops.get("policy")
            if callable(policy):
                done = policy(str(step.get("account")), step.get("changes") or {}, env)
                if asyncio.iscoroutine(done):
                    await done
            else:
                observe("policy", None, unavailable="the host adapter installed no policy operation")
        elif op == "transport_probe":
            probe = transport_probe(_transport_of(env))
            observe("transport_probe", probe)
            return text_result(sorted_json(probe), details)
        elif op == "raw":
            return step.get("result")
        elif op == "image":
            return {"content": [{"type": "image", "data": step.get("data", ""),
                                 "mimeType": step.get("mimeType", "image/png")}], "details": details}
        else:
            raise ScriptedError(f"scripted step {op!r} is unknown")
    return text_result("ok", details)


def scripted_tool(spec: Mapping[str, Any], env: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A scripted tool's definition: ``name``, ``label``, ``description``, ``parameters``, ``execute``
    (an ``async execute(call_id, params)`` that records its run and runs the handler's steps)."""
    env = dict(env or {})
    name = spec["name"]

    async def execute(call_id: str, params: Any) -> Any:
        call_record(call_id)["ran"] = True
        on_call = _REGISTRY.ops.get("on_call")
        if callable(on_call):
            on_call({"call_id": call_id, "tool": name, "params": params})
        return await run_steps(list(spec.get("handler") or []), params, {**env, "call_id": call_id, "tool": name})

    description = spec.get("description")
    return {
        "name": name,
        "label": spec.get("label") or name,
        # A string description, empty included, is passed on as the document gives it.
        "description": description if isinstance(description, str) else f"Scripted tool {name}.",
        "parameters": spec.get("parameters") or {"type": "object", "properties": {}},
        "execute": execute,
    }


async def register_scripted(
    document: Mapping[str, Any],
    *,
    register_tool: Callable[..., Any],
    define_tool: Callable[[dict[str, Any]], Any] = lambda definition: definition,
    ctx: Any = None,
    transport: Transport | None = None,
) -> None:
    """Run the document's register steps, then register each tool through ``register_tool(tool)`` or
    ``register_tool(tool, options)``: the options exactly as the document gives them (a deliberately
    wrong ``external`` included, names as the seam spells them: ``ownerUserId``, ``projectId``), left
    out where it has none. ``define_tool`` turns a definition into the host's tool object."""
    env = {"ctx": ctx, "transport": transport}
    await run_steps(list(document.get("register") or []), None, env)
    for spec in document.get("tools") or []:
        tool = define_tool(scripted_tool(spec, env))
        registered = register_tool(tool, dict(spec["options"] or {})) if "options" in spec else register_tool(tool)
        if isinstance(registered, Awaitable):
            await registered


__all__ = [
    "ScriptedError",
    "Transport",
    "call_record",
    "install_scripted_host",
    "register_scripted",
    "run_steps",
    "scripted_tool",
    "sorted_json",
    "take_call_record",
    "transport_probe",
]
