"""DELEG: delegated read-only origins, what the scenario files (scenarios/deleg) say badly: the flags of
every kind of turn and its read-only child (DELEG-1), and random delegation chains whose children,
whatever their request asks for, never clear readOnly or planMode and get no mode directive (DELEG-2/3)."""

from __future__ import annotations

import itertools

import pytest

from pytest_toolconformance.findings import shorten
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.suites.host.composing import strings_in
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
