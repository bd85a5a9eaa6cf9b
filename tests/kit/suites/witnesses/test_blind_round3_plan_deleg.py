"""Witnesses of the third blind round's broken hosts for delegation, plan mode, grants, read-only sub-agents
and scoping, written from the rules' sentences by an author who never saw the checks: each shows, through
the adapter contract alone, that the reference host does what the rule's sentence says in one cell and the
broken host does not.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import tool
from tests.kit.suites.witnesses import Pair
from tests.kit.suites.witnesses import installed as _install
from tests.kit.suites.witnesses import names_of as _names
from tests.kit.suites.witnesses import ran_and_refused_at as _ran
from tests.kit.suites.witnesses import session_of as _session
from tests.kit.suites.witnesses import text_of as _text
from tests.kit.suites.witnesses import tool_names as _tool_names

USER = {"identity": {"userId": "u1"}}
PLAN = {**USER, "mode": "plan"}


def _delegate(host: ReferenceHostAdapter, parent: str, read_only: bool, requested: dict[str, Any] | None = None) -> str:
    answer = host.delegate(parent, {"readOnly": read_only, "requested": requested or {}})
    assert "session" in answer, answer
    return answer["session"]


def _declared(*tools: dict[str, Any], read_only: list[str], defer: bool = False) -> dict[str, Any]:
    provides = {"tools": [t["name"] for t in tools], "readOnlyTools": read_only}
    return {"provides": provides, **({"deferLoading": True} if defer else {})}


# -- DELEG-1 -------------------------------------------------------------------------------------------------


def test_deleg_1_a_read_only_grandchild_of_a_writable_child_reads_read_only(hosts: Pair) -> None:
    """DELEG-1: Build turn, writable child, read-only grandchild (the host imposing it): the grandchild's
    currentAccess().readOnly, as the adapter answers it and as plugin code reads it, is true."""

    def flags(host: ReferenceHostAdapter) -> tuple[bool, bool, bool, bool]:
        probe = tool("Probe", handler=[{"op": "access"}])
        _install(host, probe, name="probe", manifest=_declared(probe, read_only=["Probe"]))
        child = _delegate(host, _session(host, USER), False)
        grand = _delegate(host, child, True)
        read = next(o["value"] for o in host.call(grand, "Probe", {})["observations"] if o["op"] == "access")
        return host.current_access(child)["readOnly"], host.current_access(grand)["readOnly"], read["readOnly"], (
            "Write" in _tool_names(host, grand)
        )

    reference, mutant = hosts("deleg_1_read_only_grandchild_of_writable_child")
    assert flags(reference) == (False, True, True, False)
    assert flags(mutant) == (False, False, False, False)  # still restricted inside: no Write offered


# -- DELEG-2 -------------------------------------------------------------------------------------------------


def test_deleg_2_a_read_only_child_of_a_build_turn_is_not_in_plan_mode(hosts: Pair) -> None:
    """DELEG-2 (docs/access-model.md §5): a read-only child of a Build turn is read-only, not in plan mode;
    a child of a Plan turn keeps planMode true."""

    def flags(host: ReferenceHostAdapter) -> tuple[Any, ...]:
        child = _delegate(host, _session(host, USER), True)
        plan_child = _delegate(host, _session(host, PLAN), True)
        return (
            host.current_access(child)["readOnly"],
            host.current_access(child)["planMode"],
            host.current_access(plan_child)["planMode"],
            host.compose(child)["modeDirective"],
        )

    reference, mutant = hosts("deleg_2_build_read_only_child_in_plan_mode")
    assert flags(reference) == (True, False, True, None)
    assert flags(mutant) == (True, True, True, None)


# -- GRANT-1 -------------------------------------------------------------------------------------------------


def test_grant_1_a_loaded_deferred_tool_still_needs_the_grant(hosts: Pair) -> None:
    """GRANT-1: a deferred tool loaded by ToolSearch, then the grant withdrawn (and, apart, the tool
    deny-listed): refused at the grant stage, its handler never runs."""

    def outcomes(host: ReferenceHostAdapter) -> list[tuple[bool, str | None]]:
        _install(host, tool("Later"), name="gp", manifest={"deferLoading": True})
        out = []
        for change in ({"pluginGrants": ["other"]}, {"deny": ["Later"]}):
            host.set_policy("u1", {"pluginGrants": ["*"], "deny": []})
            session = _session(host, USER)
            host.call(session, "ToolSearch", {"query": "select:Later"})
            assert "Later" in _tool_names(host, session)
            host.set_policy("u1", change)
            out.append(_ran(host.call(session, "Later", {})))
        return out

    reference, mutant = hosts("grant_1_loaded_tools_skip_grant")
    assert outcomes(reference) == [(False, "grant"), (False, "grant")]
    assert outcomes(mutant) == [(True, None), (True, None)]


# -- PLAN-1 --------------------------------------------------------------------------------------------------


def test_plan_1_a_plan_turn_loads_an_undeclared_deferred_tool_as_a_build_turn_does(hosts: Pair) -> None:
    """PLAN-1: after the same ToolSearch query, a Plan turn's tool list holds the undeclared deferred tool a
    Build turn's holds (plan mode then refuses to run it; it still keeps it advertised)."""

    def lists(host: ReferenceHostAdapter) -> dict[str, set[str]]:
        tools = (tool("Undeclared"), tool("Declared"))
        _install(host, *tools, name="fam", manifest=_declared(*tools, read_only=["Declared"], defer=True))
        out = {}
        for mode, spec in (("build", USER), ("plan", PLAN)):
            session = _session(host, spec)
            host.call(session, "ToolSearch", {"query": "select:Undeclared,Declared"})
            out[mode] = _tool_names(host, session) & {"Undeclared", "Declared"}
        return out

    reference, mutant = hosts("plan_1_loader_leaves_unrunnable_tools_deferred")
    assert lists(reference) == {"build": {"Declared", "Undeclared"}, "plan": {"Declared", "Undeclared"}}
    assert lists(mutant) == {"build": {"Declared", "Undeclared"}, "plan": {"Declared"}}


# -- PLAN-4 --------------------------------------------------------------------------------------------------


def test_plan_4_a_keyword_query_reaches_a_deferred_read_only_tool_on_a_plan_turn(hosts: Pair) -> None:
    """PLAN-4: a keyword query (not ``select:``) for a deferred read-only tool loads it on a Plan turn as on
    a Build turn, and it then runs."""

    def answers(host: ReferenceHostAdapter) -> list[str]:
        lookup = tool("Lookup", description="Look up a zebra record.", handler=[{"op": "text", "text": "looked up"}])
        _install(host, lookup, name="ro", manifest=_declared(lookup, read_only=["Lookup"], defer=True))
        out = []
        for spec, query in ((PLAN, "zebra record"), (PLAN, "select:Lookup"), (USER, "zebra record")):
            session = _session(host, spec)
            host.call(session, "ToolSearch", {"query": query})
            out.append(_text(host.call(session, "Lookup", {})))
        return out

    reference, mutant = hosts("plan_4_keyword_loader_skips_read_only_on_plan_turns")
    assert answers(reference) == ["looked up", "looked up", "looked up"]
    first, *rest = answers(mutant)
    assert "deferred" in first and rest == ["looked up", "looked up"]


# -- RO-5 ----------------------------------------------------------------------------------------------------


def test_ro_5_a_child_made_read_only_by_its_request_receives_the_read_only_set(hosts: Pair) -> None:
    """RO-5: a Build turn delegates with readOnly false, plugin code requesting readOnly true: the child
    (currentAccess().readOnly true) receives only the read-only set (and Bash), and cannot run the rest."""

    def child_view(host: ReferenceHostAdapter) -> tuple[bool, bool, bool, bool]:
        tools = (tool("Mutator"), tool("Reader"))
        _install(host, *tools, name="p", manifest=_declared(*tools, read_only=["Reader"]))
        child = _delegate(host, _session(host, USER), False, {"readOnly": True})
        names = _tool_names(host, child)
        ran, _ = _ran(host.call(child, "Mutator", {}))
        return host.current_access(child)["readOnly"], "Mutator" in names, "Write" in names, ran

    reference, mutant = hosts("ro_5_requested_read_only_child_gets_every_tool")
    assert child_view(reference) == (True, False, False, False)
    assert child_view(mutant) == (True, True, True, True)


def test_ro_5_a_child_the_host_delegates_read_only_is_alike_on_both(hosts: Pair) -> None:
    """RO-5, the control: a child the host itself delegates read-only receives the same on both hosts."""

    def child_tools(host: ReferenceHostAdapter) -> set[str]:
        _install(host, tool("Mutator"), name="p")
        return _names(host.compose(_delegate(host, _session(host, USER), True))["tools"])

    reference, mutant = hosts("ro_5_requested_read_only_child_gets_every_tool")
    assert child_tools(reference) == child_tools(mutant)


# -- SCOPE-2 -------------------------------------------------------------------------------------------------


def test_scope_2_an_out_of_scope_call_is_an_unknown_tool(hosts: Pair) -> None:
    """SCOPE-2: a tool scoped to account u2, called from u1's session, is an unknown tool (refused at
    lookup), not refused as "not permitted" by a later stage that tells the model it exists."""

    def outcome(host: ReferenceHostAdapter) -> tuple[bool, bool, str | None, str]:
        _install(host, tool("Mine", ownerUserId="u2"), name="p")
        session = _session(host, USER)
        answer = host.call(session, "Mine", {})
        ran, stage = _ran(answer)
        return "Mine" in _tool_names(host, session), ran, stage, _text(answer)

    reference, mutant = hosts("scope_2_out_of_scope_call_refused_at_grant")
    listed, ran, stage, said = outcome(reference)
    assert (listed, ran, stage) == (False, False, "lookup") and "Unknown tool" in said
    listed, ran, stage, said = outcome(mutant)
    assert (listed, ran, stage) == (False, False, "grant") and "scoped" in said
