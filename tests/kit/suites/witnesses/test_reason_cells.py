"""Witnesses of the REASON broken hosts for the cells the seed's sentence leaves unqualified: a scoped
internal tool, a delegated child's Bash and ToolSearch, an external definition CAP-2 replaced, an empty
``reason``, and a deferred tool loaded through ToolSearch. Each shows, through the adapter contract
alone (no check of the kit's suites involved), that the reference host does what the rule's sentence
says in that cell and the broken host does not, while the neighbouring cell is the same on both.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import flat_schema, plugin, tool
from tests.kit.suites.witnesses import Pair, has_reason, optional_reason, session_of

USER = {"identity": {"userId": "u1"}}
VALUE = flat_schema({"value": "string"})
ECHO = [{"op": "echo"}]


def _install(host: ReferenceHostAdapter, *tools: dict[str, Any], manifest: dict[str, Any] | None = None) -> None:
    report = host.install_plugin(plugin("witness", list(tools), manifest=manifest))
    assert "error" not in report and report["accepted"] == [t["name"] for t in tools], report


def _parameters(host: ReferenceHostAdapter, session: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each advertised tool's parameters: in the model's tool list, and in the provider payload."""
    answer = host.compose(session)
    tools = {entry["name"]: entry["parameters"] for entry in answer["tools"]}
    return tools, {entry["name"]: entry["parameters"] for entry in answer["payload"]["tools"]}


def _received(host: ReferenceHostAdapter, session: str, name: str, arguments: dict[str, Any]) -> Any:
    outcome = host.call(session, name, arguments)
    assert outcome["handlerRan"] and not outcome["isError"], outcome
    assert outcome["journal"]["arguments"] == arguments  # the journal keeps what the model sent
    return next(o["value"] for o in outcome["observations"] if o["op"] == "params")


# -- REASON-1: every internal tool, a scoped one included ------------------------------------------------


def test_reason_1_a_scoped_internal_tool_gains_reason(hosts: Pair) -> None:
    """REASON-1: a platform-scoped internal tool, in its platform's session, is advertised with the
    optional string reason in the tool list and the payload; an unscoped sibling has it on both hosts."""

    def reasons(host: ReferenceHostAdapter) -> tuple[bool, bool, bool]:
        _install(host, tool("PageInfo", parameters=VALUE, handler=ECHO, platform="web"), tool("Plain", handler=ECHO))
        tools, payload = _parameters(host, session_of(host, {**USER, "platform": "web"}))
        return optional_reason(tools["PageInfo"]), optional_reason(payload["PageInfo"]), has_reason(tools["Plain"])

    reference, broken = hosts("reason_1_scoped_tools_without_reason")
    assert reasons(reference) == (True, True, True)
    assert reasons(broken) == (False, False, True)


# -- REASON-2: Bash and ToolSearch, in a delegated child too ---------------------------------------------


def test_reason_2_a_read_only_child_is_offered_the_exclusions_without_reason(hosts: Pair) -> None:
    """REASON-2: a read-only child is offered Bash and ToolSearch without reason (tool list and payload);
    the parent's list and the child's other tools are the same on both hosts."""

    def offered(host: ReferenceHostAdapter) -> tuple[dict[str, Any], dict[str, bool], dict[str, Any]]:
        parent = session_of(host, USER)
        child = host.delegate(parent, {"readOnly": True, "requested": {}})["session"]
        tools, payload = _parameters(host, child)
        assert {"Bash", "ToolSearch"} <= set(tools), sorted(tools)
        gained = {
            f"{where} {name}": has_reason(listing[name])
            for name in ("Bash", "ToolSearch")
            for where, listing in (("tools", tools), ("payload", payload))
        }
        return _parameters(host, parent)[0], gained, tools["Read"]

    reference, broken = hosts("reason_2_exclusions_lost_in_children")
    parent, gained, read = offered(reference)
    assert not any(gained.values()), gained
    broken_parent, broken_gained, broken_read = offered(broken)
    assert all(broken_gained.values()), broken_gained
    assert (broken_parent, broken_read) == (parent, read)


# -- REASON-3: an external definition CAP-2 replaced -----------------------------------------------------

BIG = {
    "type": "object",
    "properties": {f"field_{i:03d}": {"type": "string", "description": "x" * 80} for i in range(100)},
}


def test_reason_3_a_replaced_external_definition_gains_no_reason(hosts: Pair) -> None:
    """REASON-3: an external definition over 8,000 bytes is advertised with CAP-2's permissive schema
    and no reason (tool list and payload); the broken host keeps the permissive schema and its notice
    but adds reason."""

    def advertised(host: ReferenceHostAdapter) -> tuple[dict[str, Any], dict[str, Any]]:
        _install(host, tool("mcp__big__dump", parameters=BIG, handler=ECHO, external=True))
        tools, payload = _parameters(host, session_of(host, USER))
        return tools["mcp__big__dump"], payload["mcp__big__dump"]

    reference, broken = hosts("reason_3_capped_external_gains_reason")
    schema, in_payload = advertised(reference)
    assert schema["properties"] == {} and schema.get("additionalProperties") is True and schema.get("description")
    assert not has_reason(schema) and not has_reason(in_payload)
    broken_schema, broken_payload = advertised(broken)
    assert has_reason(broken_schema) and has_reason(broken_payload)
    assert broken_schema.get("additionalProperties") is True and broken_schema["description"] == schema["description"]


# -- REASON-4: an empty reason, and a loaded deferred tool's --------------------------------------------


def test_reason_4_an_empty_reason_is_consumed(hosts: Pair) -> None:
    """REASON-4: ``reason: ""`` (valid against the optional string) never reaches the handler; a
    sentence is stripped on both hosts."""

    def received(host: ReferenceHostAdapter) -> tuple[Any, Any]:
        _install(host, tool("Note", parameters=VALUE, handler=ECHO))
        session = session_of(host, USER)
        return (
            _received(host, session, "Note", {"value": "x", "reason": ""}),
            _received(host, session, "Note", {"value": "x", "reason": "checking notes"}),
        )

    reference, broken = hosts("reason_4_empty_reason_reaches_handler")
    assert received(reference) == ({"value": "x"}, {"value": "x"})
    assert received(broken) == ({"value": "x", "reason": ""}, {"value": "x"})


def test_reason_4_a_loaded_deferred_tool_never_sees_reason(hosts: Pair) -> None:
    """REASON-4: a deferred internal tool, loaded through ToolSearch (and advertised with reason), never
    sees the reason it is called with; a tool that was never deferred is stripped on both hosts."""

    def received(host: ReferenceHostAdapter) -> tuple[Any, Any]:
        manifest = {"provides": {"tools": ["Lazy", "Eager"]}, "deferLoading": ["Lazy"]}
        _install(
            host,
            tool("Lazy", parameters=VALUE, handler=ECHO),
            tool("Eager", parameters=VALUE, handler=ECHO),
            manifest=manifest,
        )
        session = session_of(host, USER)
        loaded = host.call(session, "ToolSearch", {"query": "select:Lazy"})
        assert loaded["handlerRan"], loaded
        assert optional_reason(_parameters(host, session)[0]["Lazy"])
        sent = {"value": "x", "reason": "looking"}
        return _received(host, session, "Lazy", sent), _received(host, session, "Eager", sent)

    reference, broken = hosts("reason_4_reason_reaches_loaded_tools")
    assert received(reference) == ({"value": "x"}, {"value": "x"})
    assert received(broken) == ({"value": "x", "reason": "looking"}, {"value": "x"})
