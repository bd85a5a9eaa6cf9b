"""PLANFILE: the plan file allowance, what the scenario files (scenarios/planfile) say badly.

PLANFILE-1 runs the matrix of every conversation x mode and every kind of delegated child, and a spec
that names a plan file where none is minted; PLANFILE-5 random delegation chains, no child carrying
planFile whatever its request names.

The plan-file sandbox through the adapter: the attack table and a link-swap race (PLANFILE-2/3/4/5).

The table is data in :mod:`pytest_toolconformance.host.attacks`; every row runs against a fresh
``plan_file_sandbox`` (a managed Project Plan turn over a real temporary directory), and the
verdict is read from the real directory as well as from the host's answer: nothing outside the
root may change, a refused operation changes nothing, an admitted one really happened.

The race check swaps a symbolic link in and out of the plan file's parent while the host writes
the plan file; whatever the interleaving, no byte may land outside the root.

PLANFILE-6 runs a table of destructive commands (programs, options and shell syntax that would
change the workspace) and of non-destructive ones on every kind of read-only turn: the first
change nothing in the real directory, the second run and show their output. Each turn is first shown
read-only through ``currentAccess()``; one the host left writable blocks the check by the DELEG rule
that makes it read-only.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from pathlib import Path

import pytest

from pytest_toolconformance.fixtures import PlanFileSandbox
from pytest_toolconformance.host import attacks
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.suites.host.preconditions import precondition
from pytest_toolconformance.suites.host.turns import CONVERSATIONS, MODES
from pytest_toolconformance.suites.host.turns import chain_property as _chain_property
from pytest_toolconformance.suites.host.turns import open_turn as _open_turn

# -- PLANFILE-1: the matrix -----------------------------------------------------------------------

SUBJECTS = ("turn", "read-only child", "child asked for write access", "grandchild")


def _subject(turn: Session, subject: str, plan_file: str | None) -> Session:
    requested: JSON = {"planFile": plan_file} if plan_file else {}
    if subject == "turn":
        return turn
    if subject == "read-only child":
        return turn.delegate(read_only=True, requested=requested)
    if subject == "child asked for write access":
        return turn.delegate(read_only=False, requested={**requested, "readOnly": False, "planMode": False})
    return turn.delegate(read_only=True, requested=requested).delegate(read_only=True, requested=requested)


@pytest.mark.toolconformance("PLANFILE-1")
@pytest.mark.parametrize(
    ("conversation", "mode", "subject"),
    list(itertools.product(CONVERSATIONS, MODES, SUBJECTS)),
    ids=[f"{c}-{m}-{s.replace(' ', '-')}" for c, m, s in itertools.product(CONVERSATIONS, MODES, SUBJECTS)],
)
def test_planfile1_presence(toolconformance_host: HostClient, conversation: str, mode: str, subject: str) -> None:
    """planFile is on a managed/local Project conversation's own Plan turn, and nowhere else."""
    toolconformance_host.require("plan-mode", "plan-file")
    if subject != "turn":
        toolconformance_host.require("delegation")
    turn = _open_turn(toolconformance_host, conversation, mode)
    plan_file = turn.access().get("planFile")
    target = _subject(turn, subject, plan_file if isinstance(plan_file, str) else "/workspace/.plans/forged/plan.md")
    access = target.access()
    own_plan_turn = subject == "turn" and mode == "plan" and conversation in ("managed", "local")
    scenario = {"open": turn.spec, "subject": subject}
    if own_plan_turn:
        got = access.get("planFile")
        check(
            isinstance(got, str) and got.startswith("/workspace/") and len(got) > len("/workspace/"),
            f"a {conversation} Project conversation's own Plan turn carries planFile, an exact guest path under "
            "/workspace",
            access,
            scenario,
        )
    else:
        check(
            access.get("planFile") is None,
            f"no planFile on a {mode} turn of a {conversation} conversation's {subject}",
            access,
            scenario,
        )


@pytest.mark.toolconformance("PLANFILE-1")
@pytest.mark.parametrize(
    ("conversation", "mode"), [("host", "plan"), ("host", "build"), ("managed", "build"), ("local", "build")]
)
def test_planfile1_spec_contradiction_refused(toolconformance_host: HostClient, conversation: str, mode: str) -> None:
    """A session spec that names planFile where none is minted is refused as a spec error naming PLANFILE-1."""
    toolconformance_host.require("plan-file")
    spec: JSON = {
        "identity": {"userId": "u-plan"},
        "conversation": conversation,
        "mode": mode,
        "planFile": "/workspace/.plans/forged/plan.md",
    }
    if conversation != "host":
        spec["projectId"] = "proj-1"
    answer = toolconformance_host.open_raw(spec)
    err = answer.get("error") or {}
    check(
        err.get("kind") == "spec" and "PLANFILE-1" in f"{err.get('rule')} {err.get('message')}",
        "the spec is refused: error.kind 'spec', naming PLANFILE-1 (rule or message)",
        answer,
        {"open": spec},
    )


# -- PLANFILE-5: random delegation chains -------------------------------------------------------------
@pytest.mark.toolconformance("PLANFILE-5")
def test_planfile5_never_forwarded_down_a_chain(toolconformance_host: HostClient) -> None:
    """No child at any depth carries planFile, even when its request names the parent's plan path."""
    toolconformance_host.require("delegation", "plan-file")

    def visit(depth: int, child: Session, parent: JSON, access: JSON, scenario: JSON) -> None:
        check(
            access.get("planFile") is None,
            f"the child at depth {depth} has no planFile (never constructed for or forwarded to a child)",
            access,
            scenario,
        )

    _chain_property(toolconformance_host, visit)


# -- PLANFILE-2/3/4/5: the attack table and a link-swap race ----------------------------------------
ATTACK_RULES = ("PLANFILE-2", "PLANFILE-3", "PLANFILE-4", "PLANFILE-5")
RACE_ROUNDS = 2000
RACE_SECONDS = 5.0


@pytest.mark.parametrize("attack", attacks.attack_params(ATTACK_RULES))
def test_plan_file_attack(plan_file_sandbox: PlanFileSandbox, attack: attacks.Attack) -> None:
    """One row of the attack table, judged by the host's answer and the real directory."""
    verdict = plan_file_sandbox.run_attack(attack)
    expected = f"{attack.title}: {attack.expect}"
    if attack.expect == "refused":
        expected += ", and nothing in or outside the root changes"
    else:
        expected += ", and it really happens inside the root"
        if verdict.scope is not None:
            expected += f", narrowed to scope {verdict.scope!r}"
    # The reproduction is what the host was given; the row's id, title and expectation are in the
    # finding's first line and the table (attacks.py), so they are not repeated here.
    given = {"planFile": plan_file_sandbox.plan_file, "via": attack.via, "op": verdict.op}
    if attack.setup:
        given["setup"] = [dict(step) for step in attack.setup]
    check(verdict.ok, expected, {"problems": verdict.problems, "answer": verdict.answer}, given)


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
    if attacks.layout_problem(
        attacks.Attack("race", "PLANFILE-2", "", {}, "admitted", requires=("plan-parent",)), plan
    ):
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
    scenario = {
        "planFile": plan,
        "race": "a thread renames the plan file's parent away, puts a link to a "
        "directory outside the root in its place, removes it and renames the directory back, "
        "while the host writes the plan file",
        "writes": writes,
        "swapRounds": rounds[0],
    }
    check(
        not moved,
        "no write lands outside the root while a link is swapped into the plan file's parent",
        {"outsideChanges": moved, "admittedWrites": admitted},
        scenario,
    )
    stray = [p for p in pfs.root.parent.iterdir() if p.name not in (pfs.root.name, pfs.outside.name)]
    check(not stray, "nothing appears beside the root either", [str(p) for p in stray], scenario)


# -- PLANFILE-6: the non-destructive command boundary on every kind of read-only turn -----------------

KEEP = "KEEP-CONTENT-4b2\n"

#: Commands that would change the workspace through a shell, a program, an option or shell syntax.
DESTRUCTIVE = (
    "rm keep.txt", "rm -rf sub", "/bin/rm keep.txt", "mv keep.txt moved.txt", "cp keep.txt copy.txt",
    "touch new.txt", "mkdir newdir", "ln -s keep.txt link.txt", "chmod 000 keep.txt", "truncate -s 0 keep.txt",
    "dd if=/dev/zero of=keep.txt count=1", "tee new.txt", "sed -i s/KEEP/GONE/ keep.txt",
    "echo x > new.txt", "echo x >> keep.txt", "cat keep.txt > copy.txt", "ls > new.txt",
    "ls; rm keep.txt", "ls && touch new.txt", "ls | tee new.txt", "ls\nrm keep.txt", "$(rm keep.txt)",
    "`touch new.txt`", "find . -name keep.txt -delete", "find . -exec rm keep.txt ;", "sort -o keep.txt keep.txt",
    "uniq keep.txt out.txt", "git init", "bash -c 'rm keep.txt'", "sh -c 'touch new.txt'",
    "python3 -c \"open('new.txt', 'w')\"", "env rm keep.txt",
)  # fmt: skip
#: Non-destructive commands and a text their output must show.
NON_DESTRUCTIVE = (
    ("ls", "keep.txt"), ("ls sub", "inner.txt"), ("cat keep.txt", "KEEP-CONTENT-4b2"),
    ("grep KEEP keep.txt", "KEEP-CONTENT-4b2"), ("head -n 1 keep.txt", "KEEP-CONTENT-4b2"),
    ("find . -name inner.txt", "inner.txt"), ("echo boundary-ok", "boundary-ok"), ("wc -c keep.txt", "17"),
)  # fmt: skip
#: Read-only turns: a Project Plan turn, a host Plan turn, a read-only child of a Build turn, and a
#: grandchild of a Plan turn whose delegation asked to clear readOnly and planMode.
READ_ONLY_TURNS = ("project-plan-turn", "host-plan-turn", "read-only-child", "plan-grandchild-asking-write")


def _read_only_turn(host: HostClient, kind: str, root: Path) -> Session:
    base: dict[str, object] = {"identity": {"userId": "u-bash"}, "sandboxRoot": str(root)}
    if kind == "project-plan-turn":
        host.require("plan-mode")
        return host.open(**base, conversation="managed", projectId="proj-1", mode="plan")
    if kind == "host-plan-turn":
        host.require("plan-mode")
        return host.open(**base, conversation="host", mode="plan")
    host.require("delegation")
    if kind == "read-only-child":
        return host.open(**base).delegate(read_only=True)
    host.require("plan-mode")
    asks = {"readOnly": False, "planMode": False}
    plan = host.open(**base, conversation="managed", projectId="proj-1", mode="plan")
    return plan.delegate(read_only=False, requested=asks).delegate(read_only=False, requested=asks)


#: The rule that makes each kind of turn read-only: a Plan turn's admitted restriction and a read-only
#: delegated origin are DELEG-1's; a Plan turn's child keeping readOnly whatever its request asked is DELEG-3's.
READ_ONLY_BY = {
    "project-plan-turn": "DELEG-1",
    "host-plan-turn": "DELEG-1",
    "read-only-child": "DELEG-1",
    "plan-grandchild-asking-write": "DELEG-3",
}


def _read_only_turn_held(host: HostClient, kind: str, root: Path) -> Session:
    """The read-only turn ``kind``, once it is shown read-only (``currentAccess().readOnly``): PLANFILE-6
    judges commands on read-only turns, so a turn the host left writable is the DELEG rule's fault (the
    check is blocked by it), not the command boundary's."""
    session = _read_only_turn(host, kind, root)
    access = session.access()
    precondition(
        access.get("readOnly") is True,
        READ_ONLY_BY[kind],
        f"the {kind.replace('-', ' ')} to be read-only (currentAccess().readOnly true)",
        {k: access.get(k) for k in ("readOnly", "planMode")},
    )
    return session


def _workspace(folder: Path) -> Path:
    root = folder / "root"
    (root / "sub").mkdir(parents=True)
    (root / "keep.txt").write_text(KEEP, "utf-8")
    (root / "sub" / "inner.txt").write_text("inner\n", "utf-8")
    return root


@pytest.mark.toolconformance("PLANFILE-6")
@pytest.mark.parametrize("turn", READ_ONLY_TURNS)
# A newline in an id is written <LF>, not as an escape: pytest escapes a backslash in an id again, and the
# serial and xdist runs were seen to disagree on how many times.
@pytest.mark.parametrize("command", DESTRUCTIVE, ids=[c.replace("\n", "<LF>") for c in DESTRUCTIVE])
def test_planfile6_destructive_command_changes_nothing(
    toolconformance_host: HostClient, toolconformance_folder: Path, turn: str, command: str
) -> None:
    """On a read-only turn a command that would change the workspace changes nothing."""
    toolconformance_host.require("bash", "sandbox")
    root = _workspace(toolconformance_folder)
    session = _read_only_turn_held(toolconformance_host, turn, root)
    before = attacks.snapshot(toolconformance_folder)
    answer = session.call("Bash", {"command": command})
    moved = attacks.changes(before, attacks.snapshot(toolconformance_folder))
    check(
        not moved,
        f"on a {turn.replace('-', ' ')}, {command!r} is refused or harmless: the workspace is unchanged",
        {"changes": moved, "answer": {k: answer.get(k) for k in ("content", "isError")}},
        {
            "turn": turn,
            "files": {"keep.txt": KEEP, "sub/inner.txt": "inner\n"},
            "call": {"tool": "Bash", "command": command},
        },
    )


@pytest.mark.toolconformance("PLANFILE-6")
@pytest.mark.parametrize("turn", READ_ONLY_TURNS)
@pytest.mark.parametrize(("command", "shows"), NON_DESTRUCTIVE, ids=[c for c, _ in NON_DESTRUCTIVE])
def test_planfile6_non_destructive_command_runs(
    toolconformance_host: HostClient, toolconformance_folder: Path, turn: str, command: str, shows: str
) -> None:
    """On a read-only turn a non-destructive command runs, with no writable environment descriptor."""
    toolconformance_host.require("bash", "sandbox")
    root = _workspace(toolconformance_folder)
    session = _read_only_turn_held(toolconformance_host, turn, root)
    answer = session.call("Bash", {"command": command})
    text = "\n".join(str(c.get("text", "")) for c in answer.get("content") or [] if isinstance(c, dict))
    check(
        answer.get("handlerRan") is True and shows in text,
        f"on a {turn.replace('-', ' ')}, {command!r} runs and its output shows {shows!r}",
        {k: answer.get(k) for k in ("content", "isError", "handlerRan", "refusal")},
        {
            "turn": turn,
            "files": {"keep.txt": KEEP, "sub/inner.txt": "inner\n"},
            "call": {"tool": "Bash", "command": command},
        },
    )
