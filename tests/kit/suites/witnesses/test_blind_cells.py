"""Witnesses of the broken hosts written from the rules' sentences by authors who never saw the checks:
each shows, through the adapter contract alone (no check of the kit's suites involved), that the
reference host does what the rule's sentence says in one cell and the broken host does not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import plugin, tool
from tests.kit.suites.witnesses import Pair, has_reason, optional_reason
from tests.kit.suites.witnesses import entry_named as _entry
from tests.kit.suites.witnesses import names_of as _names
from tests.kit.suites.witnesses import ran_and_refused_at as _ran
from tests.kit.suites.witnesses import session_of as _session
from tests.kit.suites.witnesses import text_of as _text

USER = {"identity": {"userId": "u1"}}
ECHO = [{"op": "echo"}]


def _install(
    host: ReferenceHostAdapter, *tools: dict[str, Any], name: str = "witness", manifest: dict[str, Any] | None = None
) -> list[str]:
    report = host.install_plugin(plugin(name, list(tools), manifest=manifest))
    assert "error" not in report, report
    return report["accepted"]


def _child(host: ReferenceHostAdapter, parent: str, read_only: bool = True) -> str:
    return host.delegate(parent, {"readOnly": read_only, "requested": {}})["session"]


def _received(outcome: dict[str, Any]) -> Any:
    """The arguments an echoing handler received."""
    return next(o["value"] for o in outcome["observations"] if o["op"] == "params")


def _parameters(host: ReferenceHostAdapter, session: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each advertised tool's parameters: in the model's tool list, and in the provider payload."""
    answer = host.compose(session)
    tools = {entry["name"]: entry["parameters"] for entry in answer["tools"]}
    return tools, {entry["name"]: entry["parameters"] for entry in answer["payload"]["tools"]}


# -- SCOPE ---------------------------------------------------------------------------------------------------


def test_scope_2_a_child_is_not_offered_out_of_scope_tools(hosts: Pair) -> None:
    """SCOPE-2: a tool scoped elsewhere is absent from a delegated child's list and catalog, and unknown there."""
    scoped = {"DiscordPost", "ProjectNote"}

    def in_child(host: ReferenceHostAdapter) -> tuple[set[str], set[str], tuple[bool, str | None]]:
        _install(host, tool("DiscordPost", platform="discord"), tool("ProjectNote", projectId="p-other"))
        parent = _session(host, {**USER, "platform": "web", "projectId": "p1"})
        composed = host.compose(parent)
        assert not scoped & (_names(composed["catalog"]) | _names(composed["tools"]))
        child = _child(host, parent, read_only=False)
        composed = host.compose(child)
        offered = (scoped & _names(composed["tools"]), scoped & _names(composed["catalog"]))
        return *offered, _ran(host.call(child, "DiscordPost", {}))

    reference, mutant = hosts("scope_2_children_see_out_of_scope_tools")
    assert in_child(reference) == (set(), set(), (False, "lookup"))
    assert in_child(mutant) == (scoped, scoped, (True, None))


def test_scope_2_a_deferred_out_of_scope_tool_is_not_in_the_catalog(hosts: Pair) -> None:
    """SCOPE-2: a deferred tool scoped to another platform is omitted from this platform's catalog."""

    def deferred_entries(host: ReferenceHostAdapter) -> list[bool]:
        _install(
            host,
            tool("PageSnapshot", platform="web"),
            tool("PageClick", platform="web"),
            name="visitor",
            manifest={"provides": {"tools": ["PageSnapshot", "PageClick"]}, "deferLoading": ["PageSnapshot"]},
        )
        own = host.compose(_session(host, {**USER, "platform": "web"}))
        assert _entry(own["catalog"], "PageSnapshot")["deferred"] is True
        other = _session(host, {**USER, "platform": "discord"})
        composed = host.compose(other)
        assert "PageSnapshot" not in _names(composed["tools"]) and "PageClick" not in _names(composed["catalog"])
        assert not host.call(other, "ToolSearch", {"query": "select:PageSnapshot"})["details"].get("loaded")
        assert _ran(host.call(other, "PageSnapshot", {})) == (False, "lookup")
        return [entry["deferred"] for entry in composed["catalog"] if entry["name"] == "PageSnapshot"]

    reference, mutant = hosts("scope_2_deferred_out_of_scope_in_catalog")
    assert deferred_entries(reference) == []
    assert deferred_entries(mutant) == [True]


def test_scope_3_a_scoped_tool_meets_the_live_grant_and_deny_list(hosts: Pair) -> None:
    """SCOPE-3: a visible scoped tool still passes the grant and the deny-list in force when it is called."""

    def later_calls(host: ReferenceHostAdapter) -> tuple[tuple[bool, str | None], tuple[bool, str | None]]:
        _install(host, tool("VisitorPage", platform="web"), tool("Anywhere"), name="pages")
        session = _session(host, {**USER, "platform": "web"})
        assert host.call(session, "VisitorPage", {})["handlerRan"]
        assert "VisitorPage" in _names(host.compose(session)["tools"])
        host.set_policy("u1", {"pluginGrants": ["someone-else"]})
        revoked = _ran(host.call(session, "VisitorPage", {}))
        assert _ran(host.call(session, "Anywhere", {})) == (False, "grant")
        host.set_policy("u1", {"pluginGrants": ["*"], "deny": ["VisitorPage"]})
        denied = _ran(host.call(session, "VisitorPage", {}))
        later = _session(host, {**USER, "platform": "web"})
        assert _ran(host.call(later, "VisitorPage", {})) == (False, "grant")
        return revoked, denied

    reference, mutant = hosts("scope_3_scoped_grant_decided_at_open")
    assert later_calls(reference) == ((False, "grant"), (False, "grant"))
    assert later_calls(mutant) == ((True, None), (True, None))


def test_scope_3_a_scoped_tool_meets_plan_policy(hosts: Pair) -> None:
    """SCOPE-3: a visible scoped tool outside the read-only set is refused by plan policy on a Plan turn."""

    def on_plan_turn(host: ReferenceHostAdapter) -> tuple[tuple[bool, str | None], list[Any]]:
        _install(
            host,
            tool("VisitorPost", platform="web"),
            tool("PlainPost"),
            tool("mcp__page__click", platform="web", external=True),
            name="pages",
        )
        session = _session(host, {**USER, "platform": "web", "mode": "plan"})
        assert "VisitorPost" in _names(host.compose(session)["tools"])
        others = [host.call(session, name, {}) for name in ("PlainPost", "mcp__page__click")]
        assert not any(outcome["handlerRan"] for outcome in others)
        return _ran(host.call(session, "VisitorPost", {})), [outcome["refusal"] for outcome in others]

    reference, mutant = hosts("scope_3_scoped_tools_skip_plan_policy")
    scoped, others = on_plan_turn(reference)
    assert scoped == (False, "plan")
    assert on_plan_turn(mutant) == ((True, None), others)


# -- ACCESS --------------------------------------------------------------------------------------------------


def test_access_2_a_demotion_reaches_a_running_child(hosts: Pair) -> None:
    """ACCESS-2: a demotion and a Project revocation after delegation reach the running child."""

    def child_after_demotion(host: ReferenceHostAdapter) -> tuple[bool, list[str]]:
        host.set_policy("u1", {"admin": True, "projectIds": ["p1", "p2"]})
        parent = _session(host, USER)
        child = _child(host, parent)
        assert host.current_access(child)["admin"] is True
        host.set_policy("u1", {"admin": False, "projectIds": ["p1"]})
        parent_access = host.current_access(parent)
        assert (parent_access["admin"], parent_access["projectIds"]) == (False, ["p1"])
        access = host.current_access(child)
        return access["admin"], access["projectIds"]

    reference, mutant = hosts("access_2_child_access_frozen_at_delegation")
    assert child_after_demotion(reference) == (False, ["p1"])
    assert child_after_demotion(mutant) == (True, ["p1", "p2"])


def test_access_2_a_project_revocation_reaches_a_running_session(hosts: Pair) -> None:
    """ACCESS-2: a Project revoked while the session runs leaves its projectIds (with the demotion)."""

    def after_revocation(host: ReferenceHostAdapter) -> tuple[bool, list[str]]:
        host.set_policy("u1", {"admin": True, "projectIds": ["p1", "p2"]})
        session = _session(host, USER)
        assert host.current_access(session)["projectIds"] == ["p1", "p2"]
        host.set_policy("u1", {"admin": False, "projectIds": ["p1"]})
        access = host.current_access(session)
        return access["admin"], access["projectIds"]

    reference, mutant = hosts("access_2_project_revocation_ignored")
    assert after_revocation(reference) == (False, ["p1"])
    assert after_revocation(mutant) == (False, ["p1", "p2"])


def test_access_3_the_ceiling_is_captured_when_the_session_opens(hosts: Pair) -> None:
    """ACCESS-3: a grant made after the session opened, before its first access read, does not widen it."""

    def granted_after_open(host: ReferenceHostAdapter) -> tuple[bool, list[str]]:
        host.set_policy("u1", {"admin": False, "projectIds": ["p1"]})
        session = _session(host, USER)
        host.set_policy("u1", {"admin": True, "projectIds": ["p1", "p2"]})
        access = host.current_access(session)
        return access["admin"], access["projectIds"]

    reference, mutant = hosts("access_3_ceiling_captured_on_first_read")
    assert granted_after_open(reference) == (False, ["p1"])
    assert granted_after_open(mutant) == (True, ["p1", "p2"])


# -- GRANT ---------------------------------------------------------------------------------------------------


def test_grant_1_an_empty_grant_list_grants_nothing(hosts: Pair) -> None:
    """GRANT-1: an account whose plugin grants are empty cannot run a plugin tool."""

    def with_no_grants(host: ReferenceHostAdapter) -> tuple[bool, str | None]:
        _install(host, tool("Echo"), name="demo")
        host.set_policy("u1", {"pluginGrants": []})
        return _ran(host.call(_session(host, USER), "Echo", {}))

    reference, mutant = hosts("grant_1_empty_grants_mean_all")
    assert with_no_grants(reference) == (False, "grant")
    assert with_no_grants(mutant) == (True, None)


def test_grant_1_the_deny_list_holds_for_an_explicitly_granted_plugin(hosts: Pair) -> None:
    """GRANT-1: a deny-listed tool is refused whether its plugin is granted by name or by ``*``."""

    def denied(host: ReferenceHostAdapter) -> list[tuple[bool, str | None]]:
        _install(host, tool("Echo"), name="demo")
        outcomes = []
        for grants in (["demo"], ["*"]):
            host.set_policy("u1", {"pluginGrants": grants, "deny": ["Echo"]})
            outcome = host.call(_session(host, USER), "Echo", {})
            outcomes.append((outcome["handlerRan"], (outcome["refusal"] or {}).get("rule")))
        return outcomes

    reference, mutant = hosts("grant_1_explicit_grant_overrides_deny")
    assert denied(reference) == [(False, "GRANT-1"), (False, "GRANT-1")]
    assert denied(mutant) == [(True, None), (False, "GRANT-1")]


# -- MANIFEST ------------------------------------------------------------------------------------------------


def test_manifest_1_another_plugins_show_output_shows_nothing(hosts: Pair) -> None:
    """MANIFEST-1: showOutput matches a tool through its own manifest, not another plugin's list."""

    def shown(host: ReferenceHostAdapter) -> tuple[bool, bool, bool]:
        _install(host, tool("Other"), name="lister", manifest={"showOutput": ["Quiet"]})
        _install(host, tool("Quiet", handler=[{"op": "text", "text": "secret-ish output"}]), name="quiet")
        outcome = host.call(_session(host, USER), "Quiet", {})
        return outcome["handlerRan"], outcome["isError"], outcome["shown"]

    reference, mutant = hosts("manifest_1_foreign_show_output_applies")
    assert shown(reference) == (True, False, False)
    assert shown(mutant) == (True, False, True)


def test_manifest_1_a_malformed_result_error_is_shown(hosts: Pair) -> None:
    """MANIFEST-1: the is_error result made from a malformed return is shown."""

    def shown(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(host, tool("Bad", handler=[{"op": "raw", "result": {"content": "not a list"}}]), name="demo")
        outcome = host.call(_session(host, USER), "Bad", {})
        return outcome["isError"], outcome["shown"]

    reference, mutant = hosts("manifest_1_malformed_result_error_hidden")
    assert shown(reference) == (True, True)
    assert shown(mutant) == (True, False)


# -- DIAG ----------------------------------------------------------------------------------------------------


def test_diag_2_a_deferred_local_tool_keeps_its_name(hosts: Pair) -> None:
    """DIAG-2: with nothing external registered, a deferred local tool's name is not redacted."""

    def diagnosed(host: ReferenceHostAdapter) -> tuple[bool, bool, int]:
        _install(host, tool("Lazy"), tool("Eager"), name="lazy", manifest={"deferLoading": ["Lazy"]})
        composed = host.compose(_session(host, USER))
        assert _entry(composed["catalog"], "Lazy")["deferred"] is True
        diagnostics = composed["diagnostics"]
        names = _names(diagnostics["tools"])
        return "Lazy" in names, "Eager" in names, diagnostics["redacted"]["tools"]

    reference, mutant = hosts("diag_2_deferred_local_names_redacted")
    assert diagnosed(reference) == (True, True, 0)
    assert diagnosed(mutant) == (False, True, 1)


def test_diag_2_an_mcp_named_local_tool_keeps_its_name(hosts: Pair) -> None:
    """DIAG-2: with nothing external, a local ``mcp__``-named tool and its namespace are not redacted."""

    def diagnosed(host: ReferenceHostAdapter) -> tuple[bool, bool, bool, int]:
        local = tool("mcp__local__echo", handler=[{"op": "text", "text": "hi"}], external=False)
        assert sorted(_install(host, local, tool("Plain"), name="bridge")) == ["Plain", "mcp__local__echo"]
        composed = host.compose(_session(host, USER))
        assert all(entry["origin"] == "internal" for entry in composed["catalog"])
        diagnostics = composed["diagnostics"]
        names = _names(diagnostics["tools"])
        namespaces = {entry["namespace"] for entry in diagnostics["tools"]}
        return "mcp__local__echo" in names, "Plain" in names, "plugin:bridge" in namespaces, diagnostics["redacted"]

    reference, mutant = hosts("diag_2_mcp_named_local_redacted")
    assert diagnosed(reference) == (True, True, True, {"tools": 0, "namespaces": 0})
    *named, redacted = diagnosed(mutant)
    assert named == [False, True, False] and redacted["tools"] == 1


def test_diag_3_the_payload_carries_no_owner(hosts: Pair) -> None:
    """DIAG-3: the provider payload's entry carries no registration metadata, here its owning plugin."""

    def entries(host: ReferenceHostAdapter) -> tuple[dict[str, Any], dict[str, Any]]:
        _install(host, tool("Echo"), name="demo")
        composed = host.compose(_session(host, USER))
        return _entry(composed["payload"]["tools"], "Echo"), _entry(composed["tools"], "Echo")

    reference, mutant = hosts("diag_3_payload_carries_owner")
    in_payload, listed = entries(reference)
    assert set(in_payload) == {"type", "name", "description", "parameters"}
    assert entries(mutant) == ({**in_payload, "owner": "demo"}, listed)


def test_diag_3_the_payload_carries_no_scope(hosts: Pair) -> None:
    """DIAG-3: a scoped tool's payload entry carries no registration metadata, here its projectId."""

    def payload(host: ReferenceHostAdapter) -> dict[str, dict[str, Any]]:
        _install(host, tool("Scoped", projectId="p1"), tool("Open"), name="demo")
        composed = host.compose(_session(host, {**USER, "projectId": "p1"}))
        return {entry["name"]: entry for entry in composed["payload"]["tools"]}

    reference, mutant = hosts("diag_3_scope_options_spread_into_payload")
    entries = payload(reference)
    assert set(entries["Scoped"]) == {"type", "name", "description", "parameters"}
    broken = payload(mutant)
    assert broken["Scoped"].get("projectId") == "p1" and broken["Open"] == entries["Open"]


# -- ERR -----------------------------------------------------------------------------------------------------

TRANSPORT_TOOLS = (
    tool("Down", handler=[{"op": "throw_transport", "message": "connect ECONNREFUSED"}]),
    tool("Bad", handler=[{"op": "throw", "message": "bad argument"}]),
    tool("Probe", handler=[{"op": "transport_probe"}]),
)


def _probe(host: ReferenceHostAdapter, session: str) -> dict[str, Any]:
    outcome = host.call(session, "Probe", {})
    return next(o["value"] for o in outcome["observations"] if o["op"] == "transport_probe")


def test_err_5_an_untagged_error_of_a_tagged_class_is_no_transport_failure(hosts: Pair) -> None:
    """ERR-5: only the error given to markTransportFailure is tagged, not a later one of its class."""

    def transports(host: ReferenceHostAdapter) -> tuple[tuple[bool, ...], dict[str, Any]]:
        _install(host, *TRANSPORT_TOOLS, name="netplug")
        session = _session(host, USER)
        outcomes = [host.call(session, name, {}) for name in ("Bad", "Down", "Bad")]
        return tuple(outcome["transport"] for outcome in outcomes), _probe(host, session)

    reference, mutant = hosts("err_5_tag_leaks_to_error_class")
    thrown, facts = transports(reference)
    assert thrown == (False, True, False) and facts["taggedIsTransport"] and not facts["plainIsTransport"]
    assert transports(mutant) == ((False, True, True), {**facts, "plainIsTransport": True})


def test_err_5_a_plain_object_carrying_the_tag_is_no_transport_failure(hosts: Pair) -> None:
    """ERR-5: isTransportFailure is true for tagged errors only, not for a plain object with the key."""

    def transports(host: ReferenceHostAdapter) -> tuple[dict[str, Any], tuple[bool, ...]]:
        _install(host, *TRANSPORT_TOOLS, name="netplug")
        session = _session(host, USER)
        facts = _probe(host, session)
        return facts, tuple(host.call(session, name, {})["transport"] for name in ("Down", "Bad"))

    reference, mutant = hosts("err_5_tag_read_off_plain_objects")
    facts, thrown = transports(reference)
    assert facts["taggedIsTransport"] and facts["survivesRethrow"] and not facts["objectIsTransport"]
    assert thrown == (True, False)
    assert transports(mutant) == ({**facts, "objectIsTransport": True}, thrown)


# -- CAP -----------------------------------------------------------------------------------------------------


def test_cap_4_an_omitted_argument_gets_no_advertised_default(hosts: Pair) -> None:
    """CAP-4: an external call reaches its owner as sent; the schema's defaults are not filled in."""
    search = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "default": 10},
            "sort": {"type": "string", "default": "relevance"},
        },
        "required": ["query"],
    }

    def received(host: ReferenceHostAdapter) -> list[Any]:
        _install(host, tool("mcp__docs__search", parameters=search, handler=ECHO, external=True), name="mcp")
        session = _session(host, USER)
        outcomes = [host.call(session, "mcp__docs__search", a) for a in ({"query": "caps"}, {"query": "c", "limit": 3})]
        assert outcomes[0]["journal"]["arguments"] == {"query": "caps"}
        return [_received(outcome) for outcome in outcomes]

    reference, mutant = hosts("cap_4_external_schema_defaults_filled_in")
    assert received(reference) == [{"query": "caps"}, {"query": "c", "limit": 3}]
    assert received(mutant) == [
        {"query": "caps", "limit": 10, "sort": "relevance"},
        {"query": "c", "limit": 3, "sort": "relevance"},
    ]


def test_cap_4_an_external_call_keeps_its_own_reason(hosts: Pair) -> None:
    """CAP-4: an external call's arguments reach its owner as sent, its own ``reason`` included."""
    ban = {"type": "object", "properties": {"user": {"type": "string"}, "reason": {"type": "string"}}}
    sent = {"user": "spammer", "reason": "posted scam links"}

    def received(host: ReferenceHostAdapter) -> tuple[Any, Any, dict[str, Any]]:
        _install(
            host,
            tool("mcp__mod__ban", parameters={**ban, "required": ["user"]}, handler=ECHO, external=True),
            tool("LocalBan", parameters={"type": "object", "properties": {"user": {"type": "string"}}}, handler=ECHO),
            name="mcp",
        )
        session = _session(host, USER)
        local = host.call(session, "LocalBan", {"user": "spammer", "reason": "status line"})
        tools = _parameters(host, session)[0]
        return _received(host.call(session, "mcp__mod__ban", sent)), _received(local), tools

    reference, mutant = hosts("cap_4_reason_stripped_from_external_calls")
    external, local, tools = received(reference)
    assert (external, local) == (sent, {"user": "spammer"})
    assert received(mutant) == ({"user": "spammer"}, local, tools)


# -- EXT -----------------------------------------------------------------------------------------------------


def test_ext_4_a_deferred_external_tool_stays_external_with_deferral_off(hosts: Pair) -> None:
    """EXT-4: a deferLoading external tool stays external in a session that switches deferral off."""
    page = {"type": "object", "properties": {"page": {"type": "string"}}}

    def with_deferral_off(host: ReferenceHostAdapter) -> tuple[str, bool, tuple[bool, str | None]]:
        _install(
            host,
            tool("mcp__wiki__read", parameters=page, handler=ECHO, external=True),
            name="mcp",
            manifest={"provides": {"tools": ["mcp__*"]}, "deferLoading": True},
        )
        entry = _entry(host.compose(_session(host, USER))["catalog"], "mcp__wiki__read")
        assert (entry["deferred"], entry["origin"]) == (True, "external")
        off = _session(host, {**USER, "deferral": {"enabled": False}})
        composed = host.compose(off)
        entry = _entry(composed["catalog"], "mcp__wiki__read")
        assert entry["deferred"] is False
        advertised = _entry(composed["tools"], "mcp__wiki__read")["parameters"]
        return entry["origin"], has_reason(advertised), _ran(host.call(off, "mcp__wiki__read", {"page": 7}))

    reference, mutant = hosts("ext_4_deferral_off_external_becomes_internal")
    assert with_deferral_off(reference) == ("external", False, (True, None))
    assert with_deferral_off(mutant) == ("internal", True, (False, "validation"))


def test_ext_4_a_loaded_external_tool_is_called_as_external(hosts: Pair) -> None:
    """EXT-4: a deferred external tool loaded by ToolSearch stays external: its call is forwarded as sent."""
    issue = {"type": "object", "properties": {"issue": {"type": "string"}}, "required": ["issue"]}
    sent = {"issue": 42, "reason": "owner's own field", "extra": True}

    def loaded_call(host: ReferenceHostAdapter) -> tuple[dict[str, Any], tuple[bool, str | None], Any]:
        _install(
            host,
            tool("mcp__tracker__get", parameters=issue, handler=ECHO, external=True),
            name="mcp",
            manifest={"provides": {"tools": ["mcp__*"]}, "deferLoading": ["mcp__*"]},
        )
        session = _session(host, USER)
        assert _entry(host.compose(session)["catalog"], "mcp__tracker__get")["deferred"] is True
        loaded = host.call(session, "ToolSearch", {"query": "select:mcp__tracker__get"})
        assert loaded["details"]["loaded"] == ["mcp__tracker__get"]
        entry = _entry(host.compose(session)["catalog"], "mcp__tracker__get")
        outcome = host.call(session, "mcp__tracker__get", sent)
        return entry, _ran(outcome), _received(outcome) if outcome["handlerRan"] else None

    reference, mutant = hosts("ext_4_loaded_external_called_as_internal")
    entry, ran, received = loaded_call(reference)
    assert (entry["deferred"], entry["origin"], ran, received) == (False, "external", (True, None), sent)
    assert loaded_call(mutant) == (entry, (False, "validation"), None)


# -- REG -----------------------------------------------------------------------------------------------------


def test_reg_5_a_name_only_declared_in_provides_is_an_unknown_tool(hosts: Pair) -> None:
    """REG-5: a name listed only in provides.tools registers nothing: calling it is an unknown tool."""

    def called(host: ReferenceHostAdapter) -> tuple[tuple[bool, str | None], list[str], bool]:
        _install(
            host, tool("TicketRead"), name="tickets", manifest={"provides": {"tools": ["TicketRead", "TicketClose"]}}
        )
        session = _session(host, {**USER, "hooks": [{"tool": "*", "decision": "allow"}]})
        composed = host.compose(session)
        assert "TicketClose" not in _names(composed["catalog"]) | _names(composed["tools"])
        declared, never = (host.call(session, name, {}) for name in ("TicketClose", "NeverDeclared"))
        assert _ran(never) == (False, "lookup")
        as_unknown = _text(declared).replace("TicketClose", "X") == _text(never).replace("NeverDeclared", "X")
        return _ran(declared), declared["hooksRan"], as_unknown

    reference, mutant = hosts("reg_5_declared_name_routed_to_plugin")
    assert called(reference) == ((False, "lookup"), [], True)
    assert called(mutant) == ((True, None), ["*"], False)


# -- REASON --------------------------------------------------------------------------------------------------


def test_reason_1_the_payload_gives_internal_tools_reason(hosts: Pair) -> None:
    """REASON-1: the provider payload gives internal tools (a plugin's, core Read) the optional string reason."""

    def reasons(host: ReferenceHostAdapter) -> dict[str, tuple[bool, bool, bool]]:
        value = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}
        _install(host, tool("Note", parameters=value, handler=ECHO), name="notes")
        tools, payload = _parameters(host, _session(host, USER))
        return {
            name: (optional_reason(payload[name]), has_reason(payload[name]), has_reason(tools[name]))
            for name in ("Note", "Read")
        }

    reference, mutant = hosts("reason_1_payload_without_reason")
    assert reasons(reference) == dict.fromkeys(("Note", "Read"), (True, True, True))
    assert reasons(mutant) == dict.fromkeys(("Note", "Read"), (False, False, True))


def test_reason_2_tool_search_never_gains_reason(hosts: Pair) -> None:
    """REASON-2: ToolSearch is advertised without reason, in the tool list and the payload."""

    def gained(host: ReferenceHostAdapter) -> tuple[bool, bool, bool, dict[str, Any]]:
        tools, payload = _parameters(host, _session(host, USER))
        return has_reason(tools["ToolSearch"]), has_reason(payload["ToolSearch"]), has_reason(tools["Bash"]), tools

    reference, mutant = hosts("reason_2_tool_search_gains_reason")
    *flags, tools = gained(reference)
    assert flags == [False, False, False]
    *broken_flags, broken_tools = gained(mutant)
    assert broken_flags == [True, True, False] and broken_tools["Read"] == tools["Read"]


def test_reason_3_a_plain_named_external_tool_never_gains_reason(hosts: Pair) -> None:
    """REASON-3: a plain-named external tool is advertised byte for byte as registered, without reason."""
    schema = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}

    def as_bytes(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"))

    def advertised(host: ReferenceHostAdapter) -> list[str]:
        external = [
            tool(name, parameters=schema, handler=ECHO, external=True) for name in ("runner_lookup", "mcp__srv__lookup")
        ]
        _install(host, *external, name="bridge")
        session = _session(host, USER)
        assert _entry(host.compose(session)["catalog"], "runner_lookup")["origin"] == "external"
        tools, payload = _parameters(host, session)
        return [as_bytes(s) for s in (tools["runner_lookup"], payload["runner_lookup"], tools["mcp__srv__lookup"])]

    reference, mutant = hosts("reason_3_plain_named_external_gains_reason")
    assert advertised(reference) == [as_bytes(schema)] * 3
    plain, in_payload, mcp = advertised(mutant)
    assert '"reason"' in plain and '"reason"' in in_payload and mcp == as_bytes(schema)


# -- RO ------------------------------------------------------------------------------------------------------


def test_ro_1_the_wildcard_classifies_no_other_plugins_tools(hosts: Pair) -> None:
    """RO-1: ``mcp__*`` classifies the declaring plugin's external tools only, never another plugin's."""
    query = {"type": "object", "properties": {"q": {"type": "string"}}}

    def classified(host: ReferenceHostAdapter) -> tuple[dict[str, bool], set[str]]:
        _install(host, tool("mcp__early__write", parameters=query, external=True), name="early")
        _install(
            host,
            tool("mcp__srv__read", parameters=query, external=True),
            name="bridge",
            manifest={"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}},
        )
        _install(host, tool("mcp__late__write", parameters=query, external=True), name="late")
        session = _session(host, USER)
        catalog = host.compose(session)["catalog"]
        read_only = {entry["name"]: entry["readOnly"] for entry in catalog if entry["owner"] != "core"}
        offered = {name for name in _names(host.compose(_child(host, session))["catalog"]) if name.startswith("mcp__")}
        return read_only, offered

    reference, mutant = hosts("ro_1_wildcard_reaches_other_plugins")
    names = ("mcp__early__write", "mcp__srv__read", "mcp__late__write")
    assert classified(reference) == (dict(zip(names, (False, True, False), strict=True)), {"mcp__srv__read"})
    assert classified(mutant) == (dict.fromkeys(names, True), set(names))


# -- PLAN ----------------------------------------------------------------------------------------------------

PEEK_MANIFEST = {"provides": {"tools": ["Peek"], "readOnlyTools": ["Peek"]}, "deferLoading": ["Peek"]}


def test_plan_4_a_plan_turn_loads_a_deferred_read_only_tool(hosts: Pair) -> None:
    """PLAN-4: on a Plan turn, as on a Build turn, ToolSearch loads a deferred read-only tool, which then runs."""

    def reached(host: ReferenceHostAdapter) -> list[tuple[bool, bool, str | None]]:
        _install(host, tool("Peek", handler=[{"op": "text", "text": "peeked"}]), name="peek", manifest=PEEK_MANIFEST)
        turns = []
        for mode in ("plan", "build"):
            session = _session(host, {**USER, "mode": mode})
            entry = _entry(host.compose(session)["catalog"], "Peek")
            assert entry["deferred"] is True and entry["readOnly"] is True
            loader = host.call(session, "ToolSearch", {"query": "select:Peek"})
            assert loader["handlerRan"], loader
            turns.append(("Loaded: Peek" in _text(loader), *_ran(host.call(session, "Peek", {}))))
        return turns

    reference, mutant = hosts("plan_4_loader_skips_read_only_on_plan_turns")
    assert reached(reference) == [(True, True, None), (True, True, None)]
    assert reached(mutant) == [(False, False, "deferral"), (True, True, None)]


def test_plan_4_a_plan_turn_reaches_a_deferred_read_only_tool_through_the_loader(hosts: Pair) -> None:
    """PLAN-4: on a Plan turn a deferred read-only tool called before it is loaded is refused as deferred."""

    def first_calls(host: ReferenceHostAdapter) -> list[tuple[bool, str | None]]:
        _install(host, tool("Peek", handler=[{"op": "text", "text": "peeked"}]), name="peek", manifest=PEEK_MANIFEST)
        turns = []
        for mode in ("plan", "build"):
            session = _session(host, {**USER, "mode": mode})
            composed = host.compose(session)
            assert _entry(composed["catalog"], "Peek")["deferred"] and "Peek" not in _names(composed["tools"])
            turns.append(_ran(host.call(session, "Peek", {})))
            host.call(session, "ToolSearch", {"query": "select:Peek"})
            assert host.call(session, "Peek", {})["handlerRan"]
        return turns

    reference, mutant = hosts("plan_4_plan_turn_runs_deferred_read_only_unloaded")
    assert first_calls(reference) == [(False, "deferral"), (False, "deferral")]
    assert first_calls(mutant) == [(True, None), (False, "deferral")]


# -- PLANFILE ------------------------------------------------------------------------------------------------


def test_planfile_6_an_allowlisted_programs_writing_option_is_refused(hosts: Pair, tmp_path: Path) -> None:
    """PLANFILE-6: on a Plan turn the boundary refuses an allowlisted program's writing options."""

    def after_plan_turn(host: ReferenceHostAdapter, root: Path) -> tuple[bool, str, list[str]]:
        root.mkdir()
        (root / "victim.txt").write_text("keep me\n")
        (root / "list.txt").write_text("b\na\n")
        session = _session(host, {**USER, "mode": "plan", "sandboxRoot": str(root)})
        access = host.current_access(session)
        assert access["readOnly"] and "planFile" not in access
        commands = ("ls", "find . -name victim.txt -delete", "sort -o list.txt list.txt", "rm list.txt")
        answers = [_text(host.call(session, "Bash", {"command": command})) for command in commands]
        return (root / "victim.txt").exists(), (root / "list.txt").read_text(), answers

    reference, mutant = hosts("planfile_6_program_allowlist_ignores_options")
    kept, listing, answers = after_plan_turn(reference, tmp_path / "reference")
    assert (kept, listing) == (True, "b\na\n") and "refused" in answers[1] and "refused" in answers[2]
    kept, listing, broken_answers = after_plan_turn(mutant, tmp_path / "mutant")
    assert (kept, listing) == (False, "a\nb\n") and broken_answers[::3] == answers[::3]


def test_planfile_6_a_read_only_child_runs_commands(hosts: Pair, tmp_path: Path) -> None:
    """PLANFILE-6: a read-only child is offered Bash and runs a non-destructive command in it."""

    def in_child(host: ReferenceHostAdapter, root: Path) -> tuple[bool, tuple[bool, str | None], str, set[str]]:
        root.mkdir()
        (root / "notes.txt").write_text("hello\n")
        child = _child(host, _session(host, {**USER, "sandboxRoot": str(root)}))
        assert host.current_access(child)["readOnly"] is True
        composed = host.compose(child)
        cat = host.call(child, "Bash", {"command": "cat notes.txt"})
        rm = host.call(child, "Bash", {"command": "rm notes.txt"})
        assert (root / "notes.txt").exists() and (not rm["handlerRan"] or "refused" in _text(rm))
        offered = _names(composed["tools"])
        return "Bash" in offered | _names(composed["catalog"]), _ran(cat), _text(cat), offered - {"Bash"}

    reference, mutant = hosts("planfile_6_read_only_children_lose_bash")
    offered, ran, output, others = in_child(reference, tmp_path / "reference")
    assert (offered, ran) == (True, (True, None)) and "hello" in output
    broken_offered, broken_ran, _, broken_others = in_child(mutant, tmp_path / "mutant")
    assert (broken_offered, broken_ran, broken_others) == (False, (False, "lookup"), others)


# -- DELEG ---------------------------------------------------------------------------------------------------


def test_deleg_2_a_plan_turns_child_is_sent_no_mode_directive(hosts: Pair) -> None:
    """DELEG-2: a Plan turn's child keeps planMode and is sent no mode directive, in its payload either."""

    def child_instructions(host: ReferenceHostAdapter) -> tuple[Any, str]:
        plan = _session(host, {**USER, "mode": "plan"})
        composed = host.compose(plan)
        assert composed["payload"].get("instructions") and composed["modeDirective"]
        child = _child(host, plan)
        assert host.current_access(child)["planMode"] is True
        child_composed = host.compose(child)
        assert child_composed["modeDirective"] is None
        return child_composed["payload"].get("instructions"), composed["modeDirective"]

    reference, mutant = hosts("deleg_2_child_payload_carries_plan_directive")
    assert child_instructions(reference)[0] is None
    instructions, directive = child_instructions(mutant)
    assert instructions == directive


def test_deleg_2_a_grandchild_of_a_plan_turn_keeps_plan_mode(hosts: Pair) -> None:
    """DELEG-2: planMode is kept for further delegation: a Plan turn's grandchild has it too."""

    def plan_modes(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        child = _child(host, _session(host, {**USER, "mode": "plan"}))
        grandchild = _child(host, child)
        assert host.compose(grandchild)["modeDirective"] is None
        return host.current_access(child)["planMode"], host.current_access(grandchild)["planMode"]

    reference, mutant = hosts("deleg_2_grandchild_plan_mode_dropped")
    assert plan_modes(reference) == (True, True)
    assert plan_modes(mutant) == (True, False)
