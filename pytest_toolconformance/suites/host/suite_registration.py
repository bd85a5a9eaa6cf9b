"""REG: registration and results, what the scenario files (scenarios/reg) say badly: every combination
of refusing pipeline stages (REG-6), generated details that never reach the model (REG-4) and generated
manifests against registrations (REG-5).

Refusal stages are read from the call answer's ``refusal.stage``: ``boundary``, ``plan``,
``grant`` (plugin grant and deny-list), ``hook``, ``validation`` (and ``lookup``, ``deferral``
before them).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import flat_schema, plugin, tool
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.generated import AUDIT_NAMES, JSON_SCALARS, JSON_VALUES
from pytest_toolconformance.suites.host.generated import audit_plugin as _audit_plugin
from pytest_toolconformance.suites.host.preconditions import origin_precondition, precondition

# -- REG-6: every combination of refusing stages ------------------------------------------------------
#: Pipeline order (REG-6). "deny" is the account deny-list, part of the plugin grant stage.
STAGES = ("boundary", "plan", "grant", "deny", "hook", "validation")
STAGE_ANSWER = {
    "boundary": "boundary",
    "plan": "plan",
    "grant": "grant",
    "deny": "grant",
    "hook": "hook",
    "validation": "validation",
}
COMBINATIONS = [c for n in range(len(STAGES) + 1) for c in itertools.combinations(STAGES, n)]
#: Stages whose refusal another rule owns: REG-6 is about their order, so a stage that does not
#: refuse even when it is the only one switched on blocks the check by its own rule.
STAGE_RULE = {"plan": "PLAN-2", "grant": "GRANT-1", "deny": "GRANT-1"}


def _combination_id(combo: tuple[str, ...]) -> str:
    return "+".join(combo) or "none"


def _stage_alone(client: HostClient, stage: str) -> JSON:
    """Call Act with only ``stage`` refusing, from an account of its own (policy is per account)."""
    account = f"user-alone-{stage}"
    if stage == "grant":
        client.set_policy(account, pluginGrants=[])
    if stage == "deny":
        client.set_policy(account, deny=["Act"])
    spec: JSON = {"identity": {"userId": account}}
    if stage == "plan":
        spec["mode"] = "plan"
    return client.open(**spec).call("Act", {"value": "x"})


@pytest.mark.toolconformance("REG-6")
@pytest.mark.parametrize("combo", COMBINATIONS, ids=[_combination_id(c) for c in COMBINATIONS])
def test_reg6_first_refusing_stage_wins(toolconformance_host: HostClient, combo: tuple[str, ...]) -> None:
    """Switch on any set of refusing stages: the earliest refuses, nothing after it runs."""
    toolconformance_host.require("registration", "calls", "hooks", "policy", "plan-mode")
    doc = plugin(
        "pipeline",
        [tool("Act", parameters=flat_schema({"value": "string"}), handler=[{"op": "text", "text": "Act ran"}])],
    )
    policy: JSON = {}
    if "grant" in combo:
        policy["pluginGrants"] = []
    if "deny" in combo:
        policy["deny"] = ["Act"]
    spec: JSON = {"identity": {"userId": "user-1"}}
    if "boundary" in combo:
        spec["permissions"] = {"deny": ["Act"]}
    if "plan" in combo:
        spec["mode"] = "plan"
    if "hook" in combo:
        spec["hooks"] = [{"tool": "Act", "decision": "deny", "message": "held by hook"}]
    arguments: JSON = {} if "validation" in combo else {"value": "x"}
    scenario = {
        "plugins": [doc],
        "policy": {"user-1": policy},
        "open": spec,
        "call": {"tool": "Act", "arguments": arguments},
    }

    toolconformance_host.install_ok(doc)
    if policy:
        toolconformance_host.set_policy("user-1", **policy)
    answer = toolconformance_host.open(**spec).call("Act", arguments)

    with origin_precondition(toolconformance_host):
        if not combo:
            check(
                answer.get("handlerRan") is True and answer.get("refusal") is None,
                "a call no stage refuses runs its handler",
                answer,
                scenario,
            )
            return
        expected = STAGE_ANSWER[combo[0]]
        refusal = answer.get("refusal") or {}
        if combo[0] in STAGE_RULE and (answer.get("handlerRan") is not False or refusal.get("stage") != expected):
            alone = _stage_alone(toolconformance_host, combo[0])
            precondition(
                alone.get("handlerRan") is False and (alone.get("refusal") or {}).get("stage") == expected,
                STAGE_RULE[combo[0]],
                f"the {combo[0]} stage alone to refuse Act (stage {expected!r})",
                alone,
            )
        check(
            answer.get("handlerRan") is False, f"stages {list(combo)} refuse: the handler never runs", answer, scenario
        )
        check(
            refusal.get("stage") == expected,
            f"with {list(combo)} refusing, the first in pipeline order refuses: stage {expected!r} "
            "(order: boundary, plan, grant and deny-list, hooks, validation)",
            refusal or answer,
            scenario,
        )
        if expected in ("boundary", "plan", "grant"):
            check(
                not answer.get("hooksRan"),
                f"no hook runs for a call the {expected} stage refused",
                answer.get("hooksRan"),
                scenario,
            )
        if expected == "validation":
            text = json.dumps(answer.get("content"), ensure_ascii=False)
            check(
                answer.get("isError") is False and "value" in text,
                "a breaking call is refused with a text result naming the parameters (value), not is_error",
                {"isError": answer.get("isError"), "content": answer.get("content")},
                scenario,
            )


# -- REG-4: generated details never reach the model ---------------------------------------------------
SECRET = "SECRET-5b1e-host-only"


def _contains(value: Any, needle: str) -> bool:
    """Whether any string (value or key) anywhere in ``value`` contains ``needle``."""
    if isinstance(value, str):
        return needle in value
    if isinstance(value, dict):
        return any(_contains(k, needle) or _contains(v, needle) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains(v, needle) for v in value)
    return False


@st.composite
def _details(draw: st.DrawFn) -> JSON:
    """A details object with the secret somewhere: as a value or a key, up to four levels down."""
    details: JSON = draw(st.dictionaries(st.text("abc", max_size=3), JSON_VALUES, max_size=3))
    leaf: Any = {SECRET: draw(JSON_SCALARS)} if draw(st.booleans()) else SECRET
    for _ in range(draw(st.integers(0, 3))):
        leaf = [draw(JSON_VALUES), leaf] if draw(st.booleans()) else {draw(st.text("xyz", max_size=2)): leaf}
    details[draw(st.sampled_from(["s", "t", "content", "isError"]))] = leaf
    return details


@pytest.mark.toolconformance("REG-4")
def test_reg4_generated_details_never_reach_model(toolconformance_host: HostClient) -> None:
    """details holding the secret anywhere (values, keys, nested): neither the model result nor the
    next provider payload carries it, for a normal, a shown, a failing and an external tool."""
    toolconformance_host.require("registration", "composition", "calls")

    def body(details: JSON) -> None:
        toolconformance_host.reset()
        step = {"op": "details", "details": details}
        doc = plugin(
            "vault",
            [
                tool("Quiet", handler=[step, {"op": "text", "text": "quiet answer"}]),
                tool("Loud", handler=[step, {"op": "text", "text": "loud answer"}]),
                tool("Failing", handler=[step, {"op": "throw", "message": "failed"}]),
                tool("mcp__v__ext", handler=[step, {"op": "text", "text": "external answer"}], external=True),
            ],
            manifest={"showOutput": ["Loud"]},
        )
        toolconformance_host.install_ok(doc)
        session = toolconformance_host.open()
        # The failing tool goes last, so a host that stops a session after a throw (ERR-1) does
        # not show up here as a REG-4 failure.
        for name in ("Quiet", "Loud", "mcp__v__ext", "Failing"):
            answer = session.call(name)
            scenario = {"plugins": [doc], "call": name}
            check(answer.get("handlerRan") is True, f"{name} runs", answer, scenario)
            check(
                not _contains(answer.get("modelResult"), SECRET),
                f"the result the model gets from {name} carries nothing of details",
                answer.get("modelResult"),
                scenario,
            )
        payload = session.compose().get("payload")
        check(
            not _contains(payload, SECRET),
            "the provider payload composed after the calls carries no details",
            payload,
            {"plugins": [doc], "calls": ["Quiet", "Loud", "mcp__v__ext", "Failing"], "then": "compose"},
        )

    run_property(name_strategy(_details(), f"{__name__}._details"), body, cap=20, share_draws=True)


# -- REG-5: generated manifests against registrations ------------------------------------------------
_manifest_case = st.tuples(
    st.lists(st.sampled_from(AUDIT_NAMES), unique=True),  # registered
    st.lists(st.sampled_from(AUDIT_NAMES), unique=True),  # provides.tools
    st.lists(st.sampled_from(AUDIT_NAMES), unique=True),  # deferLoading / showOutput names
)


@pytest.mark.toolconformance("REG-5")
def test_reg5_catalog_gains_exactly_the_registrations(toolconformance_host: HostClient) -> None:
    """Any manifest (provides.tools, deferLoading and showOutput lists) against any registrations:
    the catalog gains exactly the registered names."""
    toolconformance_host.require("registration", "composition")
    baseline = set(toolconformance_host.open().catalog_names())

    def body(value: tuple[list[str], list[str], list[str]]) -> None:
        registered, listed, others = value
        toolconformance_host.reset()
        doc = _audit_plugin(registered, listed, others)
        toolconformance_host.install_ok(doc)
        catalog = set(toolconformance_host.open().catalog_names()) - baseline
        check(
            catalog == set(registered),
            f"the catalog gains exactly the registered tools {sorted(registered)}; provides and manifest lists "
            f"register nothing",
            sorted(catalog),
            {"plugins": [doc]},
        )

    run_property(name_strategy(_manifest_case, f"{__name__}._manifest_case"), body, cap=25, share_draws=True)
