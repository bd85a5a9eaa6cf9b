"""GRANT: who may call, what the scenario files (scenarios/grant) say badly: grants and deny-list
changed between the calls of one session, each call decided by the policy in force (GRANT-1), whichever way
the tool reached the session (instance-wide, scoped to its account, deferred and loaded)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import plugin, tool
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.preconditions import precondition, registrations_hold

# -- GRANT-1: the live policy decides every call ------------------------------------------------------
#: The tools, by every way a plugin tool reaches a session: instance-wide (internal and external), scoped
#: to the session's own account, and deferred then loaded through ToolSearch (internal and external).
_INSTANCE_WIDE = ("Act", "Sib", "mcp__g__ext")
_SCOPED = ("Mine",)
_DEFERRED = ("Later", "mcp__g__later")
_NAMES = (*_INSTANCE_WIDE, *_SCOPED, *_DEFERRED)
_policy_state = st.fixed_dictionaries(
    {
        "pluginGrants": st.sampled_from([[], ["*"], ["granted"], ["other"], ["other", "granted"]]),
        "deny": st.lists(st.sampled_from(_NAMES), unique=True, max_size=3),
    }
)
_grant_steps = st.lists(st.tuples(_policy_state, st.sampled_from(_NAMES)), min_size=1, max_size=10)
_USER = "user-1"


def _granted(capabilities: frozenset[str]) -> JSON:
    """The plugin: what the host can place of each way (scoped tools need scoping, deferred ones deferral)."""
    tools = [tool("Act"), tool("Sib"), tool("mcp__g__ext", external=True)]
    manifest: JSON | None = None
    if "scoping" in capabilities:
        tools.append(tool("Mine", ownerUserId=_USER))
    if "deferral" in capabilities:
        tools += [tool("Later"), tool("mcp__g__later", external=True)]
        manifest = {"deferLoading": list(_DEFERRED)}
    return plugin("granted", tools, manifest=manifest)


#: Each way's cells first, whatever the example budget: no grant, another plugin's grant, the tool denied,
#: each after a call the policy allowed (so a loaded tool has run before its grant goes).
_ALLOWED: JSON = {"pluginGrants": ["*"], "deny": []}
_EXAMPLES = [
    [
        (_ALLOWED, name),
        ({"pluginGrants": [], "deny": []}, name),
        (_ALLOWED, name),
        ({"pluginGrants": ["other"], "deny": []}, name),
        (_ALLOWED, name),
        ({"pluginGrants": ["*"], "deny": [name]}, name),
    ]
    for name in (*_DEFERRED, *_SCOPED, "mcp__g__ext")
]


def _reached(client: HostClient, answer: JSON, name: str) -> None:
    """A call the policy allows that did not run: a tool the host registered wrong (its origin, EXT-1/EXT-2)
    is that rule's; refused as still deferred after ToolSearch loaded it, the load did not hold (MANIFEST-2);
    refused as unknown in its own account's session, the scope did not reach it (SCOPE-1). None is the
    grant's."""
    registrations_hold(client, "GRANT-1")
    stage = (answer.get("refusal") or {}).get("stage")
    summary = {k: answer.get(k) for k in ("handlerRan", "refusal")}
    if name in _DEFERRED:
        precondition(stage not in ("deferral", "lookup"), "MANIFEST-2", f"{name}, once loaded, to be callable", summary)
    if name in _SCOPED:
        precondition(stage != "lookup", "SCOPE-1", f"{name}, scoped to the session's account, to be there", summary)


@pytest.mark.toolconformance("GRANT-1")
def test_grant1_live_policy_decides_each_call(toolconformance_host: HostClient) -> None:
    """Change grants and deny-list between calls of one session: each call runs exactly when the
    policy in force at that moment grants the plugin and does not deny the tool, whichever way the tool
    reached the session: instance-wide, scoped to its account, or deferred and loaded through ToolSearch
    (a loaded tool is no more entitled than one never deferred). A scoped tool that runs without the grant
    is blocked by SCOPE-3 (scoping does not replace execution-time authorization)."""
    client = toolconformance_host
    client.require("registration", "calls", "policy")
    granted = _granted(client.capabilities)
    present = {t["name"] for t in granted["tools"]}

    def body(steps: list[tuple[JSON, str]]) -> None:
        client.reset()
        client.install_ok(granted)
        session = client.open(identity={"userId": _USER})
        loads = [f"select:{name}" for name in _DEFERRED if name in present]
        for query in loads:
            session.ask("call", "ToolSearch", {"query": query}, None, refusal="return")
        history: list[Any] = [{"call": "ToolSearch", "query": query} for query in loads]
        for policy, name in steps:
            if name not in present:
                continue
            client.set_policy(_USER, **policy)
            history.append({"policy": policy, "call": name})
            answer = session.call(name)
            allowed = ("*" in policy["pluginGrants"] or "granted" in policy["pluginGrants"]) and name not in policy[
                "deny"
            ]
            scenario = {"plugins": [granted], "steps": history}
            if allowed:
                if answer.get("handlerRan") is not True:
                    _reached(client, answer, name)
                check(
                    answer.get("handlerRan") is True,
                    f"{name} runs: the live policy grants plugin 'granted' and does not deny it",
                    answer,
                    scenario,
                )
            else:
                refused = answer.get("handlerRan") is False and (answer.get("refusal") or {}).get("stage") == "grant"
                if not refused and name in _SCOPED:
                    precondition(
                        answer.get("handlerRan") is False,
                        "SCOPE-3",
                        f"{name}, scoped to the calling account, to still pass the grant and deny-list",
                        {k: answer.get(k) for k in ("handlerRan", "refusal")},
                    )
                check(
                    refused,
                    f"{name} is refused by the grant stage: the live policy lacks the grant or denies the tool",
                    answer,
                    scenario,
                )

    run_property(
        name_strategy(_grant_steps, f"{__name__}._grant_steps"), body, cap=25, examples=_EXAMPLES, share_draws=True
    )
