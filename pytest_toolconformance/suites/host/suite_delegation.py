"""DELEG: delegated read-only origins, what the scenario files (scenarios/deleg) say badly: the flags of
every kind of turn and its read-only child (DELEG-1), as the adapter answers them and, on the turn itself,
as plugin code reads them through ``ctx.currentAccess()`` inside a tool; what plugin code reads in the
children below every kind of turn (DELEG-3, its plugin side); and random delegation chains whose children,
whatever their request asks for, never clear readOnly or planMode and get no mode directive (DELEG-2/3)."""

from __future__ import annotations

import itertools

import pytest

from pytest_toolconformance.findings import shorten
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import plugin, tool
from pytest_toolconformance.suites.host.composing import install, strings_in
from pytest_toolconformance.suites.host.preconditions import precondition, registrations_hold
from pytest_toolconformance.suites.host.turns import CONVERSATIONS, MODES, check_keeps_plan_mode
from pytest_toolconformance.suites.host.turns import chain_property as _chain_property
from pytest_toolconformance.suites.host.turns import open_turn as _open_turn


# -- DELEG-2/3: random delegation chains ------------------------------------------------------------
@pytest.mark.toolconformance("DELEG-3")
def test_deleg3_child_never_clears_restrictions(toolconformance_host: HostClient) -> None:
    """Whatever the delegation request asks for, a child keeps its parent's readOnly and planMode, and a
    child delegated read-only is read-only."""
    toolconformance_host.require("delegation", "plan-mode")

    def visit(depth: int, child: Session, parent: JSON, access: JSON, scenario: JSON) -> None:
        if parent.get("readOnly") is True or scenario["delegated"]["readOnly"]:
            check(
                access.get("readOnly") is True,
                f"the child at depth {depth} stays readOnly (its parent was read-only or it was delegated read-only)",
                access,
                scenario,
            )
        check_keeps_plan_mode(depth, parent, access, scenario, "whatever its request said")

    _chain_property(toolconformance_host, visit)


@pytest.mark.toolconformance("DELEG-2")
def test_deleg2_plan_mode_kept_without_directive(toolconformance_host: HostClient) -> None:
    """Below a Plan turn every descendant keeps planMode true, yet starts in Build: no mode directive."""
    toolconformance_host.require("delegation", "plan-mode", "composition")

    # The directive the owner's chat receives on a Plan turn, in this host's words: a child must get it
    # by no path, neither as its own modeDirective nor inside its provider payload.
    owner_directive = _open_turn(toolconformance_host, "managed", "plan").compose().get("modeDirective")

    def visit(depth: int, child: Session, parent: JSON, access: JSON, scenario: JSON) -> None:
        check_keeps_plan_mode(depth, parent, access, scenario, "for further delegation")
        composed = child.compose()
        directive = composed.get("modeDirective")
        check(
            directive is None,
            f"the child at depth {depth} starts in Build with no mode directive",
            {"modeDirective": directive},
            scenario,
        )
        if isinstance(owner_directive, str) and owner_directive:
            carried = [text for text in strings_in(composed.get("payload")) if owner_directive in text]
            check(
                not carried,
                f"the child at depth {depth} receives no owner-chat mode directive in its provider payload "
                f"(a Plan turn's directive is {shorten(owner_directive, 80)})",
                {"payload strings carrying it": carried},
                scenario,
            )

    _chain_property(toolconformance_host, visit)


# -- DELEG-1: the read-only flags of every turn and its child ---------------------------------------
@pytest.mark.toolconformance("DELEG-1")
@pytest.mark.parametrize(("conversation", "mode"), list(itertools.product(CONVERSATIONS, MODES)))
def test_deleg1_read_only_flags(toolconformance_host: HostClient, conversation: str, mode: str) -> None:
    """readOnly is true on every Plan turn and on every read-only delegated origin, false on a Build turn."""
    toolconformance_host.require("delegation", "plan-mode")
    turn = _open_turn(toolconformance_host, conversation, mode)
    access = turn.access()
    scenario = {"open": turn.spec}
    check(
        access.get("readOnly") is (mode == "plan"),
        f"a {mode} turn has readOnly {mode == 'plan'} (the admitted Plan restriction)",
        access,
        scenario,
    )
    child = turn.delegate(read_only=True).access()
    check(
        child.get("readOnly") is True,
        "a read-only delegated child has readOnly true",
        child,
        {**scenario, "delegate": {"readOnly": True}},
    )


#: A plugin tool declared read-only by its exact name (so a Plan turn and a read-only child run it) that
#: reads ``ctx.currentAccess()`` in its handler: what plugin code reads, not the adapter's answer.
_PEEK = "deleg_access_peek"
_PEEK_PLUGIN = plugin(
    "deleg-access-probe",
    [tool(_PEEK, handler=[{"op": "access"}, {"op": "text", "text": "read"}])],
    manifest={"provides": {"tools": [_PEEK], "readOnlyTools": [_PEEK]}},
)


def _plugin_reads(session: Session, turn: Session, runs_by: str, where: str) -> JSON:
    """What the probe tool's ``ctx.currentAccess()`` read in ``session`` (``where`` says which turn; ``turn``
    is the turn it is, or is delegated below). A probe that did not run there is another rule's fault, not
    the restriction's: its registration's (EXT-1/EXT-2, SCHEMA-1), SCOPE-1's where the turn does not offer
    the instance-wide probe at all, else ``runs_by``'s (the rule that says it runs there)."""
    outcome = session.call(_PEEK, {})
    if outcome.get("handlerRan") is not True:
        summary = {k: outcome.get(k) for k in ("handlerRan", "refusal", "isError")}
        registrations_hold(session.client, runs_by)
        if "composition" in session.client.capabilities:
            precondition(
                _PEEK in {e.get("name") for e in turn.compose().get("tools") or []},
                "SCOPE-1",
                f"the instance-wide {_PEEK} to be offered on the turn it runs on or below ({turn.spec})",
                summary,
            )
        precondition(False, runs_by, f"{_PEEK}, declared read-only by its exact name, to run on {where}", summary)
    reads = [o.get("value") for o in outcome.get("observations") or [] if o.get("op") == "access"]
    return reads[-1] if reads and isinstance(reads[-1], dict) else {"observed": reads}


@pytest.mark.toolconformance("DELEG-1")
@pytest.mark.parametrize(("conversation", "mode"), list(itertools.product(CONVERSATIONS, MODES)))
def test_deleg1_plugin_reads_read_only_flags(toolconformance_host: HostClient, conversation: str, mode: str) -> None:
    """What plugin code reads through ``ctx.currentAccess()`` on a turn itself carries the admitted Plan
    restriction: readOnly true on every Plan turn (not only in the adapter's answer), false on a Build turn.
    (What it reads in a child is DELEG-3's, docs/readings.md: test_deleg3_plugin_reads_restrictions_in_children.)"""
    client = toolconformance_host
    client.require("registration", "calls", "plan-mode")
    install(client, [_PEEK_PLUGIN])
    turn = _open_turn(client, conversation, mode)
    scenario: JSON = {"plugins": [_PEEK_PLUGIN], "open": turn.spec, "call": {"tool": _PEEK, "handler": "access"}}
    # A Build turn runs every tool it is offered; a Plan turn runs an exact read-only name (PLAN-2 both).
    read = _plugin_reads(turn, turn, "PLAN-2", f"a {conversation} {mode} turn")
    check(
        read.get("readOnly") is (mode == "plan"),
        f"plugin code on a {conversation} {mode} turn reads currentAccess().readOnly {mode == 'plan'} "
        "(the admitted Plan restriction)",
        read,
        scenario,
    )


@pytest.mark.toolconformance("DELEG-3")
@pytest.mark.parametrize(("conversation", "mode"), list(itertools.product(CONVERSATIONS, MODES)))
def test_deleg3_plugin_reads_restrictions_in_children(
    toolconformance_host: HostClient, conversation: str, mode: str
) -> None:
    """Plugin code in a read-only child of any turn, and in that child's own child (delegated read-only or
    asking to clear the restrictions), reads readOnly true through ``ctx.currentAccess()``, and planMode
    true below a Plan turn: the access it would construct a further child's from (docs/readings.md,
    DELEG-3 plugin side)."""
    client = toolconformance_host
    client.require("registration", "calls", "delegation", "plan-mode")
    install(client, [_PEEK_PLUGIN])
    turn = _open_turn(client, conversation, mode)
    scenario: JSON = {"plugins": [_PEEK_PLUGIN], "open": turn.spec, "call": {"tool": _PEEK, "handler": "access"}}
    child = turn.delegate(read_only=True)
    asks = {"readOnly": False, "planMode": False}
    below = (
        ([{"readOnly": True}], child, "a read-only child"),
        ([{"readOnly": True}, {"readOnly": True}], child.delegate(read_only=True), "its read-only child"),
        (
            [{"readOnly": True}, {"readOnly": False, "requested": asks}],
            child.delegate(read_only=False, requested=asks),
            "its child asking to clear readOnly and planMode",
        ),
    )
    for chain, session, where in below:
        read = _plugin_reads(session, turn, "RO-5", f"{where} of a {conversation} {mode} turn")
        check(
            read.get("readOnly") is True and (mode != "plan" or read.get("planMode") is True),
            f"plugin code in {where} (below a {conversation} {mode} turn) reads currentAccess().readOnly true"
            + (" and planMode true" if mode == "plan" else ""),
            {k: read.get(k) for k in ("readOnly", "planMode")},
            {**scenario, "delegate": chain},
        )
