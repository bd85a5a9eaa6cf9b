"""DELEG: delegated read-only origins, what the scenario files (scenarios/deleg) say badly: the flags of
every kind of turn and its read-only child, and of read-only origins below writable parents, each way and at
each depth (DELEG-1), as the adapter answers them and, on the turn itself, as plugin code reads them through
``ctx.currentAccess()`` inside a tool; no plan mode below a Build turn (DELEG-2); what plugin code reads in
the children below every kind of turn (DELEG-3, its plugin side); and random delegation chains whose
children, whatever their request asks for, never clear readOnly or planMode and get no mode directive
(DELEG-2/3)."""

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
    """Whatever the delegation request asks for, a child keeps its parent's readOnly and planMode. A child
    of a writable parent has no restriction to keep: whether its own read-only origin (delegated or
    requested) shows is DELEG-1's (test_deleg1_read_only_origins_below_writable_parents)."""
    toolconformance_host.require("delegation", "plan-mode")

    def visit(depth: int, child: Session, parent: JSON, access: JSON, scenario: JSON) -> None:
        if parent.get("readOnly") is True:
            check(
                access.get("readOnly") is True,
                f"the child at depth {depth} stays readOnly (its parent was read-only)",
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


#: Every way a child of a writable parent becomes read-only: the host delegates it read-only, the access
#: plugin code constructs for it asks readOnly (the host delegating it writable), or both.
_WAYS: tuple[tuple[str, bool, JSON], ...] = (
    ("delegated read-only", True, {}),
    ("delegated writable, its requested access read-only", False, {"readOnly": True}),
    ("delegated read-only, its requested access read-only too", True, {"readOnly": True}),
)
#: How many writable children stand between the Build turn and the read-only origin.
_WRITABLE_DEPTHS = (0, 1, 2)


def _read_only_origins(client: HostClient) -> list[tuple[str, Session, list[Session], JSON]]:
    """Read-only origins below writable parents, in every conversation's Build turn: each way of
    :data:`_WAYS` directly below the turn, below its writable child and below that child's writable child.
    Each is (what it is, the origin, its writable ancestors below the turn, the scenario to reproduce it)."""
    origins = []
    for conversation in CONVERSATIONS:
        turn = _open_turn(client, conversation, "build")
        chain = [turn]
        for _ in range(max(_WRITABLE_DEPTHS)):
            chain.append(chain[-1].delegate(read_only=False))
        for depth in _WRITABLE_DEPTHS:
            for way, read_only, requested in _WAYS:
                origin = chain[depth].delegate(read_only=read_only, requested=dict(requested))
                writable = [{"readOnly": False, "requested": {}}] * depth
                steps = [*writable, {"readOnly": read_only, "requested": requested}]
                above = f"{depth} writable child{'ren' if depth != 1 else ''}"
                where = f"a child {way}, below {above} of a {conversation} Build turn"
                origins.append((where, origin, chain[1 : depth + 1], {"open": turn.spec, "delegate": steps}))
    return origins


@pytest.mark.toolconformance("DELEG-1")
def test_deleg1_read_only_origins_below_writable_parents(toolconformance_host: HostClient) -> None:
    """A delegated read-only origin is readOnly at every depth and whichever way the child became read-only:
    delegated read-only by the host, made read-only by the access plugin code requested for it, or both,
    directly below a Build turn (host, managed, local) or below one or two writable children of it. Its
    parent has no restriction to keep, so the origin is the child's own (not DELEG-3's "never cleared")."""
    client = toolconformance_host
    client.require("delegation")
    for where, origin, _, scenario in _read_only_origins(client):
        access = origin.access()
        check(
            access.get("readOnly") is True,
            f"{where} has currentAccess().readOnly true (an immutable delegated read-only origin)",
            {k: access.get(k) for k in ("readOnly", "planMode")},
            scenario,
        )


@pytest.mark.toolconformance("DELEG-2")
def test_deleg2_no_plan_mode_below_build_turns(toolconformance_host: HostClient) -> None:
    """Below a Build turn no child is in plan mode unless its request asks for it: a read-only origin (each
    way, at each depth), its own read-only child and the writable children above it keep the planMode false
    the Build turn has (docs/access-model.md §5: a read-only child of a Build turn is read-only but not in
    plan mode; "keeps planMode true" keeps a flag that was there)."""
    client = toolconformance_host
    client.require("delegation", "plan-mode")
    for where, origin, writable, scenario in _read_only_origins(client):
        below = origin.delegate(read_only=True)
        judged = [
            *((f"writable child {i} above {where}", child) for i, child in enumerate(writable, start=1)),
            (where, origin),
            (f"the read-only child of {where}", below),
        ]
        for name, session in judged:
            access = session.access()
            steps = scenario["delegate"] + ([{"readOnly": True, "requested": {}}] if session is below else [])
            check(
                access.get("planMode") is False,
                f"{name} has planMode false: no ancestor was in plan mode and no request asked for it",
                {k: access.get(k) for k in ("readOnly", "planMode")},
                {**scenario, "delegate": steps},
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
    """Plugin code in a read-only child of any turn, in that child's own child (delegated read-only or
    asking to clear the restrictions), and in a read-only child of the turn's writable child, reads readOnly
    true through ``ctx.currentAccess()``, and planMode true below a Plan turn: the access it would construct
    a further child's from (docs/readings.md, DELEG-3 plugin side). Where a read-only origin below a
    writable parent is not read-only in the host's own answer either, the check is blocked by DELEG-1."""
    client = toolconformance_host
    client.require("registration", "calls", "delegation", "plan-mode")
    install(client, [_PEEK_PLUGIN])
    turn = _open_turn(client, conversation, mode)
    scenario: JSON = {"plugins": [_PEEK_PLUGIN], "open": turn.spec, "call": {"tool": _PEEK, "handler": "access"}}
    child = turn.delegate(read_only=True)
    asks = {"readOnly": False, "planMode": False}
    below = (
        ([{"readOnly": True}], child, "a read-only child", True),
        ([{"readOnly": True}, {"readOnly": True}], child.delegate(read_only=True), "its read-only child", False),
        (
            [{"readOnly": True}, {"readOnly": False, "requested": asks}],
            child.delegate(read_only=False, requested=asks),
            "its child asking to clear readOnly and planMode",
            False,
        ),
        (
            [{"readOnly": False}, {"readOnly": True}],
            turn.delegate(read_only=False).delegate(read_only=True),
            "a read-only child of its writable child",
            True,
        ),
    )
    for chain, session, where, origin in below:
        read = _plugin_reads(session, turn, "RO-5", f"{where} of a {conversation} {mode} turn")
        if read.get("readOnly") is not True and origin and mode == "build":
            # A read-only origin below a writable parent (the Build turn, or its writable child): where the
            # host's own answer does not show it read-only either, its origin is what is lost, DELEG-1's.
            own = session.access()
            precondition(
                own.get("readOnly") is True,
                "DELEG-1",
                f"the host's own currentAccess() of {where} (below a {conversation} Build turn) to be readOnly",
                {k: own.get(k) for k in ("readOnly", "planMode")},
            )
        check(
            read.get("readOnly") is True and (mode != "plan" or read.get("planMode") is True),
            f"plugin code in {where} (below a {conversation} {mode} turn) reads currentAccess().readOnly true"
            + (" and planMode true" if mode == "plan" else ""),
            {k: read.get(k) for k in ("readOnly", "planMode")},
            {**scenario, "delegate": chain},
        )
