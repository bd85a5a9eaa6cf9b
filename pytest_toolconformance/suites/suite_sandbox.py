"""The plan-file sandbox through the adapter: the attack table and a link-swap race (PLANFILE-2/3/4/5).

The table is data in :mod:`pytest_toolconformance.attacks`; every row runs against a fresh
``plan_file_sandbox`` (a managed Project Plan turn over a real temporary directory), and the
verdict is read from the real directory as well as from the host's answer: nothing outside the
root may change, a refused operation changes nothing, an admitted one really happened.

The race check swaps a symbolic link in and out of the plan file's parent while the host writes
the plan file; whatever the interleaving, no byte may land outside the root.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from pytest_toolconformance import attacks
from pytest_toolconformance.client import check
from pytest_toolconformance.fixtures import PlanFileSandbox

RACE_ROUNDS = 2000
RACE_SECONDS = 5.0


@pytest.mark.parametrize("attack", attacks.attack_params())
def test_plan_file_attack(plan_file_sandbox: PlanFileSandbox, attack: attacks.Attack) -> None:
    """One row of the attack table, judged by the host's answer and the real directory."""
    verdict = plan_file_sandbox.run_attack(attack)
    expected = f"{attack.title}: {attack.expect}"
    if attack.expect == "refused":
        expected += ", and nothing in or outside the root changes"
    else:
        expected += ", and it really happens inside the root" + (
            f" with scope {attacks.expand(attack.scope, verdict.op and plan_file_sandbox.names())!r}"
            if attack.scope else ""
        )
    check(verdict.ok, attack.rule, expected,
          {"problems": verdict.problems, "answer": verdict.answer},
          {"planFile": plan_file_sandbox.plan_file, "row": attack.as_dict(), "op": verdict.op})


def _swapper(parent: Path, outside: Path, stop: threading.Event, rounds: list[int]) -> None:
    """Swap ``parent`` between a real directory and a link to ``outside`` until told to stop.

    Each round moves the real directory aside under a fresh name, so a directory the host made
    in the gap never wedges the swap: the next round simply moves that one aside instead."""
    while not stop.is_set():
        rounds[0] += 1
        stash = parent.with_name(f"{parent.name}.swap{rounds[0]}")
        for action, args in (
            (os.rename, (parent, stash)),  # the real directory steps aside...
            (os.symlink, (outside, parent)),  # ...a link out of the root takes its place...
            (time.sleep, (0,)),  # ...for a moment...
            (os.unlink, (parent,)),  # ...and goes again...
            (os.rename, (stash, parent)),  # ...and the real directory comes back
        ):
            try:
                action(*args)
            except OSError:
                pass  # the host made or holds something there meanwhile: carry on swapping


@pytest.mark.toolconformance("PLANFILE-2")
def test_plan_file_write_races_a_swapped_parent_link(plan_file_sandbox: PlanFileSandbox) -> None:
    """A thread swaps a link out of the root in and out of the plan file's parent while the host
    writes the plan file: no write may ever land outside the root (bounded: 2,000 writes or ~5 s)."""
    pfs = plan_file_sandbox
    plan = pfs.plan_file
    if attacks.layout_problem(attacks.Attack("race", "PLANFILE-2", "", {}, "admitted", requires=("plan-parent",)), plan):
        pytest.skip(f"the plan path {plan!r} has no parent directory below the guest root to swap")
    parent = pfs.host_path(plan.rpartition("/")[0])
    parent.mkdir(parents=True, exist_ok=True)
    outside_before = attacks.snapshot(pfs.outside)
    stop = threading.Event()
    rounds = [0]
    swapper = threading.Thread(target=_swapper, args=(parent, pfs.outside, stop, rounds), daemon=True)
    writes = admitted = 0
    deadline = time.monotonic() + RACE_SECONDS
    swapper.start()
    try:
        while writes < RACE_ROUNDS and time.monotonic() < deadline:
            answer = pfs.session.sandbox({"kind": "write", "path": plan, "content": f"plan {writes}\n"})
            writes += 1
            admitted += answer.get("admitted") is True
    finally:
        stop.set()
        swapper.join(timeout=10)
    moved = attacks.changes(outside_before, attacks.snapshot(pfs.outside))
    scenario = {"planFile": plan, "race": "a thread renames the plan file's parent away, puts a link to a "
                "directory outside the root in its place, removes it and renames the directory back, "
                "while the host writes the plan file", "writes": writes, "swapRounds": rounds[0]}
    check(not moved, "PLANFILE-2", "no write lands outside the root while a link is swapped into the plan "
          "file's parent", {"outsideChanges": moved, "admittedWrites": admitted}, scenario)
    stray = [p for p in pfs.root.parent.iterdir() if p.name not in (pfs.root.name, pfs.outside.name)]
    check(not stray, "PLANFILE-2", "nothing appears beside the root either", [str(p) for p in stray], scenario)
