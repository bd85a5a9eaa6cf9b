"""Witnesses of the third round's blind ACCESS and PLANFILE broken hosts: written from the seed, RULES.md and
docs/readings.md by an author who never saw the kit's checks. Each shows, through the adapter contract
alone, that the reference host does what the rule's sentence says in one cell and the broken host does
not, and (where it is cheap) that the broken host still does it in the neighbouring cells.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from tests.kit.suites.witnesses import Pair, session_of, text_of

PLAN_TURN = {"identity": {"userId": "u1"}, "projectId": "p1", "conversation": "managed", "mode": "plan"}


def _root(path: Path) -> str:
    path.mkdir()
    return str(path)


def _on_disk(root: str, guest: str) -> Path:
    return Path(root) / guest.removeprefix("/workspace/")


def _content(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


# -- ACCESS-4 ------------------------------------------------------------------------------------------------


def test_access_4_a_child_delegated_after_a_live_grant_is_not_promoted(hosts: Pair) -> None:
    """ACCESS-4: the session opened without admin/owner; the account is then made admin and owner; a child
    delegated now keeps its parent's identity (never promoted)."""

    def identities(host: ReferenceHostAdapter) -> list[tuple[bool, bool]]:
        host.set_policy("u1", {"admin": False})
        session = session_of(host, {"identity": {"userId": "u1", "admin": False}})
        host.set_policy("u1", {"admin": True, "owner": True})
        child = host.delegate(session, {"readOnly": True, "requested": {}})["session"]
        grandchild = host.delegate(child, {"readOnly": True, "requested": {}})["session"]
        return [
            (identity["admin"], identity["owner"])
            for identity in (host.current_identity(s) for s in (session, child, grandchild))
        ]

    reference, mutant = hosts("access_4_child_identity_promoted_at_delegation")
    assert identities(reference) == [(False, False)] * 3
    assert identities(mutant) == [(False, False), (True, True), (True, True)]


# -- ACCESS-6 ------------------------------------------------------------------------------------------------


def test_access_6_another_account_draining_the_queue_does_not_lend_its_access(hosts: Pair, tmp_path: Path) -> None:
    """ACCESS-6: A queues a Write, A's roots narrow, B (another account, same workspace) runs the shared
    queue: A's entry is rechecked with A's access and refused. A draining its own queue is the same on both."""

    def drained(host: ReferenceHostAdapter, root: str) -> tuple[bool, Any, bool]:
        host.set_policy("u1", {"roots": ["/workspace"]})
        host.set_policy("u2", {"roots": ["/workspace"]})
        first = session_of(host, {"identity": {"userId": "u1"}, "sandboxRoot": root})
        other = session_of(host, {"identity": {"userId": "u2"}, "sandboxRoot": root})
        assert "ticket" in host.queue_call(first, "Write", {"file_path": "/workspace/a.txt", "content": "x"})
        host.set_policy("u1", {"roots": ["/workspace/src"]})  # revoked between queueing and running
        host.run_queued(other)  # B drains the shared queue
        (outcome,) = host.run_queued(first)["outcomes"]
        host.queue_call(first, "Write", {"file_path": "/workspace/b.txt", "content": "y"})
        host.run_queued(first)  # A drains its own queue
        written, own = (_on_disk(root, f"/workspace/{name}").exists() for name in ("a.txt", "b.txt"))
        return written, outcome["refusal"], own

    reference, mutant = hosts("access_6_queue_rechecks_with_drainers_access")
    written, refusal, own = drained(reference, _root(tmp_path / "reference"))
    assert (written, own) == (False, False) and refusal is not None
    written, refusal, own = drained(mutant, _root(tmp_path / "mutant"))
    assert (written, own) == (True, False) and refusal is None


# -- ACCESS-7 ------------------------------------------------------------------------------------------------


def test_access_7_the_plan_file_keeps_the_read_before_write_guard(hosts: Pair, tmp_path: Path) -> None:
    """ACCESS-7: a managed Plan turn writes its plan file, the file changes on disk, the turn writes it again
    without reading: refused, the out-of-band bytes survive. A Build turn's file is guarded on both."""

    def plan_writes(host: ReferenceHostAdapter, root: str) -> tuple[str, str | None, str]:
        host.set_policy("u1", {"projectIds": ["p1"]})
        session = session_of(host, {**PLAN_TURN, "sandboxRoot": root})
        plan = host.current_access(session)["planFile"]
        host.call(session, "Write", {"file_path": plan, "content": "v1"})
        _on_disk(root, plan).write_text("changed by someone else")
        second = text_of(host.call(session, "Write", {"file_path": plan, "content": "v2"}))
        build = session_of(host, {"identity": {"userId": "u1"}, "sandboxRoot": root})
        host.call(build, "Write", {"file_path": "/workspace/f.txt", "content": "v1"})
        _on_disk(root, "/workspace/f.txt").write_text("oob")
        third = text_of(host.call(build, "Write", {"file_path": "/workspace/f.txt", "content": "v2"}))
        return second, _content(_on_disk(root, plan)), third

    reference, mutant = hosts("access_7_plan_file_exempt_from_guard")
    second, plan, build = plan_writes(reference, _root(tmp_path / "reference"))
    assert "ACCESS-7" in second and plan == "changed by someone else" and "ACCESS-7" in build
    second, plan, build = plan_writes(mutant, _root(tmp_path / "mutant"))
    assert plan == "v2" and "ACCESS-7" in build


# -- ACCESS-8 ------------------------------------------------------------------------------------------------


def test_access_8_the_plan_write_is_held_to_the_live_roots(hosts: Pair, tmp_path: Path) -> None:
    """ACCESS-8: a managed Plan turn whose roots are narrowed to /workspace/src writes its plan file
    (/workspace/.plans/...): refused, nothing written. Other paths stay confined on both."""

    def plan_write(host: ReferenceHostAdapter, root: str) -> tuple[list[str], bool, bool, bool]:
        host.set_policy("u1", {"projectIds": ["p1"], "roots": ["/workspace/src"]})
        session = session_of(host, {**PLAN_TURN, "sandboxRoot": root})
        access = host.current_access(session)
        plan = access["planFile"]
        admitted = host.sandbox(session, {"kind": "write", "path": plan, "content": "plan"})["admitted"]
        other = host.sandbox(session, {"kind": "read", "path": "/workspace/x.txt"})["admitted"]
        return access["roots"], admitted, _on_disk(root, plan).exists(), other

    reference, mutant = hosts("access_8_plan_file_bypasses_roots")
    assert plan_write(reference, _root(tmp_path / "reference")) == (["/workspace/src"], False, False, False)
    assert plan_write(mutant, _root(tmp_path / "mutant")) == (["/workspace/src"], True, True, False)


# -- PLANFILE-1 ----------------------------------------------------------------------------------------------


def test_planfile_1_a_regrant_restores_the_plan_file(hosts: Pair, tmp_path: Path) -> None:
    """PLANFILE-1: a managed Plan turn's Project revoked, then granted again: planFile is absent while
    revoked and back after the re-grant, the plan write admitted again. Gone for good on the broken host."""

    def regrant(host: ReferenceHostAdapter, root: str) -> tuple[bool, str | None, bool, bool]:
        host.set_policy("u1", {"projectIds": ["p1"]})
        session = session_of(host, {**PLAN_TURN, "sandboxRoot": root})
        before = host.current_access(session).get("planFile")
        host.set_policy("u1", {"projectIds": []})
        revoked = host.current_access(session).get("planFile")
        host.set_policy("u1", {"projectIds": ["p1"]})
        after = host.current_access(session).get("planFile")
        write = host.sandbox(session, {"kind": "write", "path": before, "content": "x"})["admitted"]
        return before is not None, revoked, after == before, write

    reference, mutant = hosts("planfile_1_withdrawn_for_good_after_revocation")
    assert regrant(reference, _root(tmp_path / "reference")) == (True, None, True, True)
    assert regrant(mutant, _root(tmp_path / "mutant")) == (True, None, False, False)
