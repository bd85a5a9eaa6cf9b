"""Turns and the children delegated below them, what the DELEG and PLANFILE suites share: a turn of a
conversation in a mode, and generated delegation chains walked down from one."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.profile import name_strategy, run_property

CONVERSATIONS = ("host", "managed", "local")
MODES = ("build", "plan")


def open_turn(client: HostClient, conversation: str, mode: str) -> Session:
    """A turn of ``conversation`` (a Project's for managed and local ones) in ``mode``."""
    spec: JSON = {"identity": {"userId": "u-plan"}, "conversation": conversation, "mode": mode}
    if conversation != "host":
        spec["projectId"] = "proj-1"
    return client.open(**spec)


# -- Generated delegation chains ----------------------------------------------------------------------

_REQUESTED = st.fixed_dictionaries(
    {},
    optional={
        "readOnly": st.booleans(),
        "planMode": st.booleans(),
        "planFile": st.sampled_from(["{plan}", "/workspace/.plans/forged/plan.md"]),
    },
)
_CHAIN = st.lists(st.tuples(st.booleans(), _REQUESTED), min_size=1, max_size=4)
_STARTS = st.sampled_from(
    [("managed", "plan"), ("local", "plan"), ("host", "plan"), ("managed", "build"), ("host", "build")]
)
_CHAINS = name_strategy(st.tuples(_STARTS, _CHAIN), f"{__name__}.delegation chains")

#: What a chain property asks of each child: ``visit(depth, child, parent's access, child's access, scenario)``.
Visit = Callable[[int, Session, JSON, JSON, JSON], None]


def _walk_chain(client: HostClient, start: tuple[str, str], chain: list[tuple[bool, JSON]], visit: Visit) -> None:
    client.reset()
    turn = open_turn(client, *start)
    parent_access = turn.access()
    plan = parent_access.get("planFile") or "/workspace/.plans/none/plan.md"
    steps: list[JSON] = [{"open": {"conversation": start[0], "mode": start[1]}, "access": parent_access}]
    current = turn
    for depth, (read_only, requested) in enumerate(chain, start=1):
        asked = {k: (plan if v == "{plan}" else v) for k, v in requested.items()}
        steps.append({"delegate": {"readOnly": read_only, "requested": asked}})
        current = current.delegate(read_only=read_only, requested=asked)
        access = current.access()
        visit(depth, current, parent_access, access, {"steps": steps, "delegated": {"readOnly": read_only}})
        parent_access = access
        steps[-1]["access"] = access


def chain_property(client: HostClient, visit: Visit) -> None:
    """``visit`` every child of generated delegation chains (each child asking to clear readOnly or
    planMode, or naming a plan file, or not), each chain from a fresh host and a generated turn."""

    def run(case: tuple[tuple[str, str], list[tuple[bool, JSON]]]) -> None:
        _walk_chain(client, case[0], case[1], visit)

    # A walk is a plain function of its chain, so DELEG-2, DELEG-3 and PLANFILE-5 share the chains'
    # draws (profile.run_property): generated once, kept for later runs.
    run_property(_CHAINS, run, cap=20, share_draws=True)


def check_keeps_plan_mode(depth: int, parent: JSON, access: JSON, scenario: JSON, why: str) -> None:
    """A child whose parent has planMode true keeps it (DELEG-2: for further delegation; DELEG-3:
    whatever its request said); ``why`` ends the check's words."""
    if parent.get("planMode") is True:
        check(access.get("planMode") is True, f"the child at depth {depth} keeps planMode true {why}", access, scenario)
