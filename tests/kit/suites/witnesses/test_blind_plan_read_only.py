"""Witnesses of the broken hosts for plan mode, delegation, read-only declarations and scoping, written from
the rules' sentences by an author who never saw the checks: each shows, through the adapter contract alone,
that the reference host does what the rule's sentence says in one cell and the broken host does not.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import plugin, tool
from tests.kit.suites.witnesses import Pair
from tests.kit.suites.witnesses import entry_named as _entry
from tests.kit.suites.witnesses import installed as _install
from tests.kit.suites.witnesses import names_of as _names
from tests.kit.suites.witnesses import ran_and_refused_at as _ran
from tests.kit.suites.witnesses import session_of as _session

USER = {"identity": {"userId": "u1"}}
PLAN = {**USER, "mode": "plan"}


def _child(host: ReferenceHostAdapter, parent: str, read_only: bool) -> str:
    answer = host.delegate(parent, {"readOnly": read_only, "requested": {}})
    assert "session" in answer, answer
    return answer["session"]


def _observed(outcome: dict[str, Any], op: str) -> Any:
    return next(o["value"] for o in outcome["observations"] if o["op"] == op)


# -- PLAN-1 --------------------------------------------------------------------------------------------------


def _plan_and_build_plugin(host: ReferenceHostAdapter) -> None:
    _install(
        host,
        tool("Peek"),
        tool("Deploy"),
        tool("mcp__srv__fetch", external=True),
        name="ops",
        manifest={"provides": {"tools": ["Peek", "Deploy", "mcp__*"], "readOnlyTools": ["Peek", "mcp__*"]}},
    )


def test_plan_1_a_plan_turns_payload_offers_the_build_list(hosts: Pair) -> None:
    """PLAN-1: the provider payload of a Plan turn carries the same tools as a Build turn's of the same session."""

    def lists(host: ReferenceHostAdapter) -> tuple[set[str], set[str]]:
        _plan_and_build_plugin(host)
        build = host.compose(_session(host, USER))
        plan = host.compose(_session(host, PLAN))
        assert _names(plan["tools"]) == _names(build["tools"])  # the model's tool list is right on both hosts
        assert {"Deploy", "mcp__srv__fetch", "EditImage"} <= _names(build["payload"]["tools"])
        return _names(build["payload"]["tools"]), _names(plan["payload"]["tools"])

    reference, mutant = hosts("plan_1_plan_payload_drops_unrunnable_tools")
    build, plan = lists(reference)
    assert plan == build
    build, plan = lists(mutant)
    assert build - plan == {"Deploy", "mcp__srv__fetch", "EditImage", "WorkflowStart", "ShareFile", "ShareImage"}
    assert plan < build


def test_plan_1_a_refused_tool_stays_advertised_on_later_compositions(hosts: Pair) -> None:
    """PLAN-1: after plan mode refuses a call, the Plan turn's next composition still equals the Build list."""

    def after_refusal(host: ReferenceHostAdapter) -> tuple[set[str], set[str]]:
        _plan_and_build_plugin(host)
        build = _names(host.compose(_session(host, USER))["tools"])
        plan = _session(host, PLAN)
        assert _names(host.compose(plan)["tools"]) == build  # the first composition is right on both hosts
        assert _ran(host.call(plan, "Deploy", {})) == (False, "plan")
        later = host.compose(plan)
        return build - _names(later["tools"]), build - _names(later["payload"]["tools"])

    reference, mutant = hosts("plan_1_refused_tool_withdrawn_from_later_compositions")
    assert after_refusal(reference) == (set(), set())
    assert after_refusal(mutant) == ({"Deploy"}, {"Deploy"})


# -- PLAN-2 --------------------------------------------------------------------------------------------------


def test_plan_2_a_loaded_undeclared_tool_is_refused_on_a_plan_turn(hosts: Pair) -> None:
    """PLAN-2: a deferred tool no plugin declared read-only, once loaded through ToolSearch, is still refused."""

    def loaded_call(host: ReferenceHostAdapter) -> tuple[bool, str | None]:
        _install(
            host,
            tool("Deploy"),
            tool("Scale"),
            name="ops",
            manifest={"provides": {"tools": ["Deploy", "Scale"]}, "deferLoading": ["Deploy"]},
        )
        plan = _session(host, PLAN)
        assert _entry(host.compose(plan)["catalog"], "Deploy")["deferred"] is True
        assert host.call(plan, "ToolSearch", {"query": "select:Deploy"})["details"]["loaded"] == ["Deploy"]
        assert "Deploy" in _names(host.compose(plan)["tools"])
        assert _ran(host.call(plan, "Scale", {})) == (False, "plan")  # never deferred: refused on both hosts
        build = _session(host, USER)
        host.call(build, "ToolSearch", {"query": "select:Deploy"})
        assert _ran(host.call(build, "Deploy", {})) == (True, None)  # a Build turn runs it on both hosts
        return _ran(host.call(plan, "Deploy", {}))

    reference, mutant = hosts("plan_2_loaded_tools_skip_plan_policy")
    assert loaded_call(reference) == (False, "plan")
    assert loaded_call(mutant) == (True, None)


def test_plan_2_a_refused_calls_handler_never_runs(hosts: Pair) -> None:
    """PLAN-2: an undeclared tool refused on a Plan turn has no effect: its handler never ran."""

    def effect(host: ReferenceHostAdapter) -> bool:
        _install(
            host,
            tool("Deploy", handler=[{"op": "policy", "account": "audit", "changes": {"admin": True}}]),
            name="ops",
        )
        outcome = host.call(_session(host, PLAN), "Deploy", {})
        assert _ran(outcome) == (False, "plan") and outcome["refusal"]["rule"] == "PLAN-2"
        return host.set_policy("audit", {})["admin"]

    reference, mutant = hosts("plan_2_refused_handler_runs_as_preview")
    assert effect(reference) is False
    assert effect(mutant) is True


# -- PLAN-3 --------------------------------------------------------------------------------------------------


def test_plan_3_the_instance_owner_runs_no_external_tool_on_a_plan_turn(hosts: Pair) -> None:
    """PLAN-3: an external tool declared read-only is refused on the instance owner's Plan turn too."""

    def owner_call(host: ReferenceHostAdapter) -> tuple[bool, str | None]:
        _install(
            host,
            tool("mcp__srv__lookup", external=True),
            tool("Deploy"),
            name="bridge",
            manifest={"provides": {"tools": ["mcp__*", "Deploy"], "readOnlyTools": ["mcp__*"]}},
        )
        host.set_policy("op", {"owner": True})
        owner = {"identity": {"userId": "op", "owner": True}}
        plan = _session(host, {**owner, "mode": "plan"})
        assert host.current_identity(plan)["owner"] is True
        assert _ran(host.call(_session(host, PLAN), "mcp__srv__lookup", {})) == (False, "plan")
        assert _ran(host.call(plan, "Deploy", {})) == (False, "plan")  # undeclared: refused on both hosts
        assert _ran(host.call(_session(host, owner), "mcp__srv__lookup", {})) == (True, None)
        return _ran(host.call(plan, "mcp__srv__lookup", {}))

    reference, mutant = hosts("plan_3_owner_runs_read_only_external")
    assert owner_call(reference) == (False, "plan")
    assert owner_call(mutant) == (True, None)


# -- DELEG-1 -------------------------------------------------------------------------------------------------


def test_deleg_1_a_plugin_reads_read_only_on_a_plan_turn(hosts: Pair) -> None:
    """DELEG-1: a plugin's currentAccess() on a Plan turn carries readOnly true (the admitted Plan restriction)."""

    def read(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(
            host,
            tool("Peek", handler=[{"op": "access"}, {"op": "text", "text": "peeked"}]),
            name="probe",
            manifest={"provides": {"tools": ["Peek"], "readOnlyTools": ["Peek"]}},
        )
        build = _session(host, USER)
        assert _observed(host.call(build, "Peek", {}), "access")["readOnly"] is False
        plan = _session(host, PLAN)
        assert host.current_access(plan)["readOnly"] is True  # the host's own answer is right on both hosts
        access = _observed(host.call(plan, "Peek", {}), "access")
        return access["readOnly"], access["planMode"]

    reference, mutant = hosts("deleg_1_plugin_reads_plan_turn_as_writable")
    assert read(reference) == (True, True)
    assert read(mutant) == (False, True)


# -- DELEG-3 -------------------------------------------------------------------------------------------------


def test_deleg_3_a_plan_turns_writable_delegation_keeps_read_only(hosts: Pair) -> None:
    """DELEG-3: a child a Plan turn delegates without asking for read-only still has readOnly and planMode."""

    def child_access(host: ReferenceHostAdapter) -> tuple[bool, bool, tuple[bool, str | None]]:
        _install(host, tool("Deploy"), name="ops")
        build_child = _child(host, _session(host, USER), read_only=False)
        assert host.current_access(build_child)["readOnly"] is False  # a Build turn's writable child, both hosts
        plan_read_only_child = _child(host, _session(host, PLAN), read_only=True)
        assert host.current_access(plan_read_only_child)["readOnly"] is True
        child = _child(host, _session(host, PLAN), read_only=False)
        access = host.current_access(child)
        return access["readOnly"], access["planMode"], _ran(host.call(child, "Deploy", {}))

    reference, mutant = hosts("deleg_3_plan_turn_child_delegated_writable")
    assert child_access(reference) == (True, True, (False, "lookup"))
    assert child_access(mutant) == (False, True, (True, None))


# -- RO-2 ----------------------------------------------------------------------------------------------------


def test_ro_2_a_named_mcp_entry_is_not_the_wildcards_entry(hosts: Pair) -> None:
    """RO-2: readOnlyTools ['mcp__*'] with provides.tools naming mcp__ tools but not 'mcp__*' is refused."""
    doc = plugin(
        "bridge",
        [tool("mcp__srv__read", external=True)],
        manifest={"provides": {"tools": ["mcp__srv__read"], "readOnlyTools": ["mcp__*"]}},
    )

    def install(host: ReferenceHostAdapter) -> dict[str, Any]:
        missing = plugin(
            "other",
            [tool("mcp__x__y", external=True)],
            manifest={"provides": {"tools": ["Local"], "readOnlyTools": ["mcp__*"]}},
        )
        assert host.install_plugin(missing)["error"]["kind"] == "manifest"  # refused on both hosts
        return host.install_plugin(doc)

    reference, mutant = hosts("ro_2_named_mcp_entries_match_wildcard")
    refused = install(reference)
    assert refused["error"]["kind"] == "manifest"
    assert "mcp__*" in refused["error"]["message"] and "provides.tools" in refused["error"]["message"]
    assert "mcp__srv__read" not in _names(reference.compose(_session(reference, USER))["catalog"])
    accepted = install(mutant)
    assert "error" not in accepted and accepted["accepted"] == ["mcp__srv__read"]
    assert _entry(mutant.compose(_session(mutant, USER))["catalog"], "mcp__srv__read")["readOnly"] is True


# -- RO-3 ----------------------------------------------------------------------------------------------------


def test_ro_3_a_claim_made_before_the_owner_registers_classifies_nothing(hosts: Pair) -> None:
    """RO-3: a plugin's exact read-only name for a tool another plugin registers later classifies nothing."""

    def classified(host: ReferenceHostAdapter) -> tuple[bool, bool, tuple[bool, str | None]]:
        _install(host, tool("Scale"), name="early-owner")
        claims = _install(
            host,
            tool("Note"),
            name="claims",
            manifest={"provides": {"tools": ["Note", "Deploy", "Scale"], "readOnlyTools": ["Deploy", "Scale"]}},
        )
        assert {"Deploy", "Scale"} <= {f["tool"] for f in claims["findings"] if f["rule"] == "RO-3"}
        _install(host, tool("Deploy"), name="late-owner")
        catalog = host.compose(_session(host, USER))["catalog"]
        assert _entry(catalog, "Deploy")["owner"] == "late-owner"
        return (
            _entry(catalog, "Scale")["readOnly"],
            _entry(catalog, "Deploy")["readOnly"],
            _ran(host.call(_session(host, PLAN), "Deploy", {})),
        )

    reference, mutant = hosts("ro_3_earlier_claim_classifies_later_owner")
    assert classified(reference) == (False, False, (False, "plan"))
    assert classified(mutant) == (False, True, (True, None))


# -- RO-4 ----------------------------------------------------------------------------------------------------


def test_ro_4_a_read_only_declaration_does_not_lift_the_deny_list(hosts: Pair) -> None:
    """RO-4: a tool declared read-only (exact or by mcp__*) that the account's deny-list names is refused."""

    def denied(host: ReferenceHostAdapter) -> list[tuple[bool, str | None]]:
        _install(
            host,
            tool("Peek"),
            tool("Poke"),
            tool("mcp__srv__read", external=True),
            name="probe",
            manifest={"provides": {"tools": ["Peek", "Poke", "mcp__*"], "readOnlyTools": ["Peek", "mcp__*"]}},
        )
        session = _session(host, USER)
        assert _ran(host.call(session, "Peek", {})) == (True, None)
        host.set_policy("u1", {"deny": ["Peek", "Poke", "mcp__srv__read"]})
        assert _ran(host.call(session, "Poke", {})) == (False, "grant")  # undeclared: refused on both hosts
        return [_ran(host.call(session, name, {})) for name in ("Peek", "mcp__srv__read")]

    reference, mutant = hosts("ro_4_read_only_skips_deny_list")
    assert denied(reference) == [(False, "grant"), (False, "grant")]
    assert denied(mutant) == [(True, None), (True, None)]


# -- RO-5 ----------------------------------------------------------------------------------------------------


def test_ro_5_a_read_only_child_receives_external_tools_declared_read_only(hosts: Pair) -> None:
    """RO-5: external tools declared read-only (by mcp__* or by exact name) are offered to, and run in, a
    read-only child."""
    external = {"mcp__srv__read", "Lookup"}

    def in_child(host: ReferenceHostAdapter) -> tuple[set[str], set[str], tuple[bool, str | None]]:
        _install(
            host,
            tool("mcp__srv__read", external=True),
            tool("Lookup", external=True),
            tool("Peek"),
            name="bridge",
            manifest={
                "provides": {"tools": ["mcp__*", "Lookup", "Peek"], "readOnlyTools": ["mcp__*", "Lookup", "Peek"]}
            },
        )
        _install(host, tool("mcp__srv__write2", external=True), name="plain-bridge")
        child = _child(host, _session(host, USER), read_only=True)
        composed = host.compose(child)
        assert "Peek" in _names(composed["tools"]) and "mcp__srv__write2" not in _names(composed["catalog"])
        return (
            external & _names(composed["tools"]),
            external & _names(composed["payload"]["tools"]),
            _ran(host.call(child, "mcp__srv__read", {})),
        )

    reference, mutant = hosts("ro_5_children_lose_external_read_only_tools")
    assert in_child(reference) == (external, external, (True, None))
    assert in_child(mutant) == (set(), set(), (False, "lookup"))


# -- SCOPE-1 -------------------------------------------------------------------------------------------------


def test_scope_1_a_child_of_a_project_conversation_gets_its_scoped_tools(hosts: Pair) -> None:
    """SCOPE-1: a Project- or platform-scoped tool is available in a child delegated from that conversation."""
    scoped = {"PageSnap", "ProjectNote"}

    def in_child(host: ReferenceHostAdapter) -> tuple[set[str], tuple[bool, str | None]]:
        _install(
            host,
            tool("PageSnap", platform="web"),
            tool("ProjectNote", projectId="p1"),
            tool("Anywhere"),
            name="pages",
        )
        parent = _session(host, {**USER, "conversation": "managed", "projectId": "p1", "platform": "web"})
        assert scoped | {"Anywhere"} <= _names(host.compose(parent)["tools"])
        child = _child(host, parent, read_only=False)
        names = _names(host.compose(child)["tools"])
        assert "Anywhere" in names
        return scoped & names, _ran(host.call(child, "ProjectNote", {}))

    reference, mutant = hosts("scope_1_children_lose_scoped_tools")
    assert in_child(reference) == (scoped, (True, None))
    assert in_child(mutant) == (set(), (False, "lookup"))
