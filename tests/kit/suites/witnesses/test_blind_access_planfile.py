"""Witnesses of the blind ACCESS and PLANFILE broken hosts: written from the seed, RULES.md and
docs/readings.md by an author who never saw the kit's checks. Each shows, through the adapter contract
alone, that the reference host does what the rule's sentence says in one cell and the broken host does
not, and (where it is cheap) that the broken host still does it in the neighbouring cells.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import plugin, tool
from tests.kit.suites.witnesses import Pair, session_of

USER = {"identity": {"userId": "u1"}}
PLAN_TURN = {**USER, "conversation": "managed", "projectId": "p1", "mode": "plan"}


def _install(host: ReferenceHostAdapter, *tools: dict[str, Any], name: str, manifest: dict[str, Any]) -> None:
    report = host.install_plugin(plugin(name, list(tools), manifest=manifest))
    assert "error" not in report and not report["refused"], report


def _observed(outcome: dict[str, Any], op: str) -> list[Any]:
    assert outcome["handlerRan"], outcome
    return [o["value"] for o in outcome["observations"] if o["op"] == op]


def _ok(outcome: dict[str, Any]) -> bool:
    """Whether a core file tool (or a queued Write/Edit) carried out what it was asked."""
    return bool(outcome["details"].get("ok"))


def _rule(outcome: dict[str, Any]) -> str | None:
    return outcome["details"].get("rule")


def _plan_turn(host: ReferenceHostAdapter, **extra: Any) -> tuple[str, str]:
    """A managed Project conversation's Plan turn whose account holds the Project; its plan file."""
    host.set_policy("u1", {"projectIds": ["p1"]})
    session = session_of(host, {**PLAN_TURN, **extra})
    return session, host.current_access(session)["planFile"]


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0]


# -- ACCESS-1 ------------------------------------------------------------------------------------------------


def test_access_1_a_plan_turn_keeps_the_accounts_admin_scope(hosts: Pair) -> None:
    """ACCESS-1: on a Plan turn currentAccess().admin is still the live policy intersected with the ceiling."""
    who = tool("Who", handler=[{"op": "access"}, {"op": "text", "text": "seen"}])
    turns = {
        "host build": USER,
        "host plan": {**USER, "mode": "plan"},
        "managed plan": PLAN_TURN,
        "local plan": {**PLAN_TURN, "conversation": "local"},
    }

    def admin_by_turn(host: ReferenceHostAdapter) -> dict[str, tuple[bool, bool, list[str]]]:
        _install(host, who, name="who", manifest={"provides": {"tools": ["Who"], "readOnlyTools": ["Who"]}})
        host.set_policy("u1", {"admin": True, "projectIds": ["p1"]})
        seen = {}
        for label, spec in turns.items():
            session = session_of(host, spec)
            access = host.current_access(session)
            (in_call,) = _observed(host.call(session, "Who", {}), "access")
            seen[label] = (access["admin"], in_call["admin"], access["projectIds"])
        return seen

    reference, mutant = hosts("access_1_admin_dropped_on_plan_turns")
    assert admin_by_turn(reference) == dict.fromkeys(turns, (True, True, ["p1"]))
    assert admin_by_turn(mutant) == {
        "host build": (True, True, ["p1"]),
        "host plan": (False, False, ["p1"]),
        "managed plan": (False, False, ["p1"]),
        "local plan": (False, False, ["p1"]),
    }


# -- ACCESS-4 ------------------------------------------------------------------------------------------------


def test_access_4_a_revoked_owner_is_dropped_while_admin_stays(hosts: Pair) -> None:
    """ACCESS-4: currentIdentity() drops owner once live owner authority is revoked, also for an admin."""

    def identities(host: ReferenceHostAdapter) -> list[tuple[bool, bool]]:
        host.set_policy("u1", {"owner": True, "admin": True})
        session = session_of(host, {"identity": {"userId": "u1", "owner": True, "admin": True}})
        never_owner = session_of(host, {"identity": {"userId": "u1", "admin": True}})
        seen = []
        for changes in ({}, {"owner": False}, {"owner": False, "admin": False}):
            host.set_policy("u1", changes)
            identity = host.current_identity(session)
            seen.append((identity["owner"], identity["admin"]))
        host.set_policy("u1", {"owner": True, "admin": True})
        assert host.current_identity(never_owner)["owner"] is False  # never promotes
        return seen

    reference, mutant = hosts("access_4_owner_kept_while_admin")
    assert identities(reference) == [(True, True), (False, True), (False, False)]
    assert identities(mutant) == [(True, True), (True, True), (False, False)]


# -- ACCESS-5 ------------------------------------------------------------------------------------------------


def test_access_5_a_child_rereads_access_after_an_asynchronous_wait(hosts: Pair) -> None:
    """ACCESS-5: a handler in a delegated child that reads access, waits, and reads again sees a change."""
    watch = tool(
        "Watch",
        handler=[
            {"op": "access"},
            {"op": "policy", "account": "u1", "changes": {"projectIds": ["p1"]}},
            {"op": "sleep", "seconds": 0.01},
            {"op": "access"},
            {"op": "text", "text": "watched"},
        ],
    )

    def project_reads(host: ReferenceHostAdapter) -> dict[str, list[list[str]]]:
        _install(host, watch, name="watch", manifest={"provides": {"tools": ["Watch"]}})
        reads = {}
        host.set_policy("u1", {"projectIds": ["p1", "p2"]})  # the ceiling the sessions capture
        parent = session_of(host, USER)
        child = host.delegate(parent, {"readOnly": False, "requested": {}})["session"]
        grandchild = host.delegate(child, {"readOnly": False, "requested": {}})["session"]
        for label, session in (("parent", parent), ("child", child), ("grandchild", grandchild)):
            host.set_policy("u1", {"projectIds": ["p1", "p2"]})
            reads[label] = [access["projectIds"] for access in _observed(host.call(session, "Watch", {}), "access")]
            assert host.current_access(session)["projectIds"] == ["p1"]  # the next read, between calls
        return reads

    reference, mutant = hosts("access_5_child_access_cached_per_call")
    fresh = [["p1", "p2"], ["p1"]]
    assert project_reads(reference) == {"parent": fresh, "child": fresh, "grandchild": fresh}
    stale = [["p1", "p2"], ["p1", "p2"]]
    assert project_reads(mutant) == {"parent": fresh, "child": stale, "grandchild": stale}


# -- ACCESS-6 ------------------------------------------------------------------------------------------------


def test_access_6_a_queued_plan_write_is_refused_after_the_project_is_revoked(hosts: Pair) -> None:
    """ACCESS-6 (docs/readings.md, the sandbox audit): a plan Write queued before the conversation's Project
    is revoked is refused when its entry runs; a roots narrowing is rechecked too."""

    def queued(host: ReferenceHostAdapter) -> tuple[tuple[bool, str | None], bool]:
        session, plan = _plan_turn(host)
        host.queue_call(session, "Write", {"file_path": plan, "content": "draft\n"})
        host.set_policy("u1", {"projectIds": []})
        assert "planFile" not in host.current_access(session)
        (revoked,) = host.run_queued(session)["outcomes"]
        assert not _ok(host.call(session, "Write", {"file_path": plan, "content": "direct\n"}))
        host.set_policy("u1", {"projectIds": ["p1"]})
        assert host.current_access(session)["planFile"] == plan
        host.call(session, "Read", {"file_path": plan})
        host.queue_call(session, "Write", {"file_path": plan, "content": "again\n"})
        host.set_policy("u1", {"roots": ["/workspace/src"]})
        (narrowed,) = host.run_queued(session)["outcomes"]
        return (_ok(revoked), _rule(revoked)), _ok(narrowed)

    reference, mutant = hosts("access_6_queued_plan_write_keeps_plan_file")
    assert queued(reference) == ((False, "PLANFILE-2"), False)
    assert queued(mutant) == ((True, None), False)


# -- ACCESS-7 ------------------------------------------------------------------------------------------------


def _workspace(root: Path) -> Path:
    root.mkdir()
    (root / "notes.txt").write_text("v1\n")
    return root


def test_access_7_another_sessions_write_is_a_change_since_this_session_read(hosts: Pair, tmp_path: Path) -> None:
    """ACCESS-7: a Write over content another session's Write changed since this session read it is refused."""

    def writes(host: ReferenceHostAdapter, root: Path) -> tuple[tuple[bool, str | None], str, bool]:
        spec = {**USER, "sandboxRoot": str(_workspace(root))}
        first, second = session_of(host, spec), session_of(host, spec)
        target = {"file_path": "/workspace/notes.txt"}
        for session in (first, second):
            assert _ok(host.call(session, "Read", target))
        assert _ok(host.call(second, "Write", {**target, "content": "v2 by the second session\n"}))
        over = host.call(first, "Write", {**target, "content": "v3 by the first session\n"})
        after = (root / "notes.txt").read_text()
        assert _ok(host.call(first, "Read", target))
        (root / "notes.txt").write_text("v4 on disk\n")
        on_disk = _ok(host.call(first, "Write", {**target, "content": "v5 by the first session\n"}))
        return (_ok(over), _rule(over)), after, on_disk

    reference, mutant = hosts("access_7_read_state_shared_across_sessions")
    assert writes(reference, tmp_path / "reference") == ((False, "ACCESS-7"), "v2 by the second session\n", False)
    assert writes(mutant, tmp_path / "mutant") == ((True, None), "v3 by the first session\n", False)


def test_access_7_a_queued_write_guards_the_bytes_it_replaces(hosts: Pair, tmp_path: Path) -> None:
    """ACCESS-7: a queued Write whose target changed after it was queued is refused when its entry runs."""

    def queued(host: ReferenceHostAdapter, root: Path) -> tuple[tuple[bool, str | None], str, bool]:
        session = session_of(host, {**USER, "sandboxRoot": str(_workspace(root))})
        target = {"file_path": "/workspace/notes.txt"}
        assert _ok(host.call(session, "Read", target))
        host.queue_call(session, "Write", {**target, "content": "queued\n"})
        (root / "notes.txt").write_text("changed while queued\n")
        (outcome,) = host.run_queued(session)["outcomes"]
        after = (root / "notes.txt").read_text()
        assert _ok(host.call(session, "Read", target))
        (root / "notes.txt").write_text("changed before a direct write\n")
        direct = _ok(host.call(session, "Write", {**target, "content": "direct\n"}))
        return (_ok(outcome), _rule(outcome)), after, direct

    reference, mutant = hosts("access_7_guard_checked_at_queue_time")
    assert queued(reference, tmp_path / "reference") == ((False, "ACCESS-7"), "changed while queued\n", False)
    assert queued(mutant, tmp_path / "mutant") == ((True, None), "queued\n", False)


# -- ACCESS-8 ------------------------------------------------------------------------------------------------


def test_access_8_a_root_confines_to_its_directory_not_its_spelling(hosts: Pair, tmp_path: Path) -> None:
    """ACCESS-8: a root /workspace/pub confines file tools to that directory, not to /workspace/public."""

    def reached(host: ReferenceHostAdapter, root: Path) -> dict[str, bool]:
        for sub, text in (("pub", "open\n"), ("public", "secret\n"), ("private", "hidden\n")):
            (root / sub).mkdir(parents=True)
            (root / sub / "file.txt").write_text(text)
        host.set_policy("u1", {"roots": ["/workspace/pub"]})
        session = session_of(host, {**USER, "sandboxRoot": str(root)})
        assert host.current_access(session)["roots"] == ["/workspace/pub"]
        calls = {
            "Read pub": ("Read", {"file_path": "/workspace/pub/file.txt"}),
            "Read public": ("Read", {"file_path": "/workspace/public/file.txt"}),
            "ListDir public": ("ListDir", {"path": "/workspace/public"}),
            "Read private": ("Read", {"file_path": "/workspace/private/file.txt"}),
        }
        return {label: _ok(host.call(session, name, args)) for label, (name, args) in calls.items()}

    reference, mutant = hosts("access_8_roots_matched_by_string_prefix")
    assert reached(reference, tmp_path / "reference") == {
        "Read pub": True,
        "Read public": False,
        "ListDir public": False,
        "Read private": False,
    }
    assert reached(mutant, tmp_path / "mutant") == {
        "Read pub": True,
        "Read public": True,
        "ListDir public": True,
        "Read private": False,
    }


def test_access_8_share_file_is_held_to_the_live_roots(hosts: Pair, tmp_path: Path) -> None:
    """ACCESS-8: ShareFile, a file tool, shares nothing outside the roots currentAccess() reports."""

    def shared(host: ReferenceHostAdapter, root: Path) -> dict[str, tuple[bool, str | None]]:
        (root / "pub").mkdir(parents=True)
        (root / "pub" / "ok.txt").write_text("fine\n")
        (root / "secret.txt").write_text("secret\n")
        host.set_policy("u1", {"roots": ["/workspace/pub"]})
        session = session_of(host, {**USER, "sandboxRoot": str(root)})
        calls = {
            "Read secret": ("Read", "/workspace/secret.txt"),
            "ShareFile secret": ("ShareFile", "/workspace/secret.txt"),
            "ShareFile ok": ("ShareFile", "/workspace/pub/ok.txt"),
        }
        outcomes = {label: host.call(session, name, {"file_path": path}) for label, (name, path) in calls.items()}
        return {label: (_ok(outcome), _rule(outcome)) for label, outcome in outcomes.items()}

    reference, mutant = hosts("access_8_share_file_unconfined")
    assert shared(reference, tmp_path / "reference") == {
        "Read secret": (False, "ACCESS-8"),
        "ShareFile secret": (False, "ACCESS-8"),
        "ShareFile ok": (True, None),
    }
    assert shared(mutant, tmp_path / "mutant") == {
        "Read secret": (False, "ACCESS-8"),
        "ShareFile secret": (True, None),
        "ShareFile ok": (True, None),
    }


# -- PLANFILE-1 ----------------------------------------------------------------------------------------------


def test_planfile_1_a_revoked_project_withdraws_the_plan_file(hosts: Pair) -> None:
    """PLANFILE-1 (docs/readings.md, the sandbox audit): once the conversation's Project leaves the live scope,
    currentAccess() has no planFile and the plan write is refused; a re-grant restores both."""

    def lifecycle(host: ReferenceHostAdapter) -> list[tuple[bool, list[str], bool]]:
        session, plan = _plan_turn(host, conversation="local")
        seen = []
        for projects in (["p1"], [], ["p1"]):
            host.set_policy("u1", {"projectIds": projects})
            access = host.current_access(session)
            write = host.sandbox(session, {"kind": "write", "path": plan, "content": "plan\n"})
            seen.append(("planFile" in access, access["projectIds"], write["admitted"]))
        return seen

    reference, mutant = hosts("planfile_1_kept_after_project_revocation")
    assert lifecycle(reference) == [(True, ["p1"], True), (False, [], False), (True, ["p1"], True)]
    assert lifecycle(mutant) == [(True, ["p1"], True), (True, [], True), (True, ["p1"], True)]


# -- PLANFILE-2 ----------------------------------------------------------------------------------------------


def test_planfile_2_no_directory_is_made_at_the_plan_path(hosts: Pair) -> None:
    """PLANFILE-2: the plan allowance creates the plan file's missing parents, never a directory at its path."""

    def made(host: ReferenceHostAdapter) -> list[tuple[bool, str | None]]:
        session, plan = _plan_turn(host)
        ops = [
            {"kind": "mkdir", "path": _parent(plan)},
            {"kind": "mkdir", "path": _parent(plan) + "/other"},
            {"kind": "mkdir", "path": plan},
            {"kind": "write", "path": plan, "content": "plan\n"},
        ]
        return [(answer["admitted"], answer["rule"]) for answer in (host.sandbox(session, op) for op in ops)]

    reference, mutant = hosts("planfile_2_mkdir_at_plan_path")
    assert made(reference) == [(True, None), (False, "PLANFILE-2"), (False, "PLANFILE-2"), (True, None)]
    broken = made(mutant)
    assert broken[:3] == [(True, None), (False, "PLANFILE-2"), (True, None)] and broken[3][0] is False


# -- PLANFILE-3 ----------------------------------------------------------------------------------------------


def test_planfile_3_the_plan_file_cannot_be_renamed_away(hosts: Pair, tmp_path: Path) -> None:
    """PLANFILE-3: a Plan turn may not rename its own plan file to another name."""

    def renamed(host: ReferenceHostAdapter, root: Path) -> tuple[list[tuple[bool, str | None]], bool]:
        root.mkdir()
        (root / "notes.txt").write_text("notes\n")
        session, plan = _plan_turn(host, sandboxRoot=str(root))
        assert host.sandbox(session, {"kind": "write", "path": plan, "content": "plan\n"})["admitted"]
        ops = [
            {"kind": "rename", "path": "/workspace/notes.txt", "dest": plan + ".bak"},
            {"kind": "rename", "path": "/workspace/notes.txt", "dest": plan},
            {"kind": "remove", "path": plan},
            {"kind": "rename", "path": plan, "dest": _parent(plan) + "/done.md"},
        ]
        answers = [host.sandbox(session, op) for op in ops]
        guest_plan = root.joinpath(*plan.split("/")[2:])
        return [(answer["admitted"], answer["rule"]) for answer in answers], guest_plan.exists()

    reference, mutant = hosts("planfile_3_rename_plan_file_away")
    refused = (False, "PLANFILE-3")
    assert renamed(reference, tmp_path / "reference") == ([refused] * 4, True)
    assert renamed(mutant, tmp_path / "mutant") == ([refused] * 3 + [(True, None)], False)


# -- PLANFILE-4 ----------------------------------------------------------------------------------------------


def test_planfile_4_the_paired_executor_makes_no_directories(hosts: Pair) -> None:
    """PLANFILE-4: the paired executor admits only the write of the plan file, not the mkdir of its parents."""

    def paired(host: ReferenceHostAdapter) -> list[tuple[bool, str | None, str | None]]:
        session, plan = _plan_turn(host)
        ops = [
            {"kind": "mkdir", "path": "/workspace/.plans", "executor": "paired"},
            {"kind": "mkdir", "path": "/workspace/elsewhere", "executor": "paired"},
            {"kind": "mkdir", "path": _parent(plan)},
            {"kind": "write", "path": plan, "content": "plan\n", "executor": "paired"},
            {"kind": "upload", "path": plan, "content": "plan\n", "executor": "paired"},
        ]
        answers = [host.sandbox(session, op) for op in ops]
        # The plan file's parent, the paired write's narrowed scope, named the same way on every host.
        return [
            (a["admitted"], a["rule"], a["scope"] and a["scope"].replace(_parent(plan), "<parent>")) for a in answers
        ]

    refused = (False, "PLANFILE-4", None)
    rest = [refused, (True, None, None), (True, None, "<parent>"), refused]
    reference, mutant = hosts("planfile_4_paired_creates_parents")
    assert paired(reference) == [refused, *rest]
    assert paired(mutant) == [(True, None, "/workspace"), *rest]


# -- PLANFILE-5 ----------------------------------------------------------------------------------------------


def test_planfile_5_a_child_cannot_write_its_parents_plan_file(hosts: Pair) -> None:
    """PLANFILE-5: a Plan turn's delegated child has no planFile, in its descriptor and in its sandbox."""

    def writes(host: ReferenceHostAdapter) -> tuple[bool, list[bool]]:
        session, plan = _plan_turn(host)
        child = host.delegate(session, {"readOnly": True, "requested": {}})["session"]
        grandchild = host.delegate(child, {"readOnly": True, "requested": {}})["session"]
        assert not any("planFile" in host.current_access(s) for s in (child, grandchild))
        write = {"kind": "write", "path": plan, "content": "plan\n"}
        own = host.sandbox(session, write)["admitted"]
        return own, [host.sandbox(s, write)["admitted"] for s in (child, grandchild)]

    reference, mutant = hosts("planfile_5_child_sandbox_uses_parent_plan_file")
    assert writes(reference) == (True, [False, False])
    assert writes(mutant) == (True, [True, True])
