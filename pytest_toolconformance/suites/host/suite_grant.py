"""GRANT: who may call, what the scenario files (scenarios/grant) say badly: grants and deny-list
changed between the calls of one session, each call decided by the policy in force (GRANT-1)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import plugin, tool
from pytest_toolconformance.profile import name_strategy, run_property

# -- GRANT-1: the live policy decides every call ------------------------------------------------------
_policy_state = st.fixed_dictionaries(
    {
        "pluginGrants": st.sampled_from([[], ["*"], ["granted"], ["other"], ["other", "granted"]]),
        "deny": st.lists(st.sampled_from(["Act", "Sib", "mcp__g__ext"]), unique=True, max_size=3),
    }
)
_grant_steps = st.lists(
    st.tuples(_policy_state, st.sampled_from(["Act", "Sib", "mcp__g__ext"])), min_size=1, max_size=10
)
GRANTED = plugin("granted", [tool("Act"), tool("Sib"), tool("mcp__g__ext", external=True)])


@pytest.mark.toolconformance("GRANT-1")
def test_grant1_live_policy_decides_each_call(toolconformance_host: HostClient) -> None:
    """Change grants and deny-list between calls of one session: each call runs exactly when the
    policy in force at that moment grants the plugin and does not deny the tool."""
    toolconformance_host.require("registration", "calls", "policy")

    def body(steps: list[tuple[JSON, str]]) -> None:
        toolconformance_host.reset()
        toolconformance_host.install_ok(GRANTED)
        session = toolconformance_host.open()
        history: list[Any] = []
        for policy, name in steps:
            toolconformance_host.set_policy("user-1", **policy)
            history.append({"policy": policy, "call": name})
            answer = session.call(name)
            allowed = ("*" in policy["pluginGrants"] or "granted" in policy["pluginGrants"]) and name not in policy[
                "deny"
            ]
            scenario = {"plugins": [GRANTED], "steps": history}
            if allowed:
                check(
                    answer.get("handlerRan") is True,
                    f"{name} runs: the live policy grants plugin 'granted' and does not deny it",
                    answer,
                    scenario,
                )
            else:
                check(
                    answer.get("handlerRan") is False and (answer.get("refusal") or {}).get("stage") == "grant",
                    f"{name} is refused by the grant stage: the live policy lacks the grant or denies the tool",
                    answer,
                    scenario,
                )

    run_property(name_strategy(_grant_steps, f"{__name__}._grant_steps"), body, cap=25, share_draws=True)
