"""ACCESS: live identity and access, what the scenario files (scenarios/access) say badly.

- a hypothesis state machine over random sequences of policy changes (demote/promote admin,
  revoke/grant Projects, revoke/grant owner, open another session) that checks, after every step
  and for every open session, one of ACCESS-1..4: access is the live policy intersected with the
  ceiling captured when that session opened, a change applies without respawning, a later grant
  never widens, and the identity drops revoked privilege but is never promoted;
- ACCESS-5 with a handler that reads access and identity, changes the policy, waits, and reads again;
- the file tools over a real directory for random roots (ACCESS-8), random roots at queue and at run
  time (ACCESS-6), and random histories of two sessions' Read, Write and Edit and out-of-band changes (ACCESS-7).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from pytest_toolconformance import options
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.scripted import plugin, tool
from pytest_toolconformance.profile import name_strategy, note_statistic, run_property, seeded, settings_for
from pytest_toolconformance.suites.host.preconditions import precondition

ACCOUNT = "acct-live"
PROJECTS = ("p1", "p2", "p3", "p4")


# -- ACCESS-1..4: the state machine ---------------------------------------------------------------


@dataclass(eq=False)  # kept by identity, as the sessions they track
class _Tracked:
    """One open session, or a child delegated below one, and what the kit knows it captured.

    A child (``parent`` set) carries its parent's ceiling and identity: what it captured of its own
    the seed does not say, so a child is judged only where the sentence needs no ceiling: ACCESS-2
    (within the live policy) and the never-promote half of ACCESS-4 (docs/readings.md)."""

    session: Session
    ceiling_admin: bool
    ceiling_projects: frozenset[str]
    identity_admin: bool
    identity_owner: bool
    parent: str | None = None


def _check_access_rule(
    rule_id: str, tracked: _Tracked, live: JSON, access: JSON, identity: JSON, trace: list[Any]
) -> None:
    live_admin, live_projects, live_owner = live["admin"], frozenset(live["projectIds"]), live["owner"]
    got_admin, got_projects = access.get("admin"), access.get("projectIds")
    scenario = {
        "steps": trace,
        "session": tracked.session.id,
        "ceiling": {"admin": tracked.ceiling_admin, "projectIds": sorted(tracked.ceiling_projects)},
        "live": {"admin": live_admin, "owner": live_owner, "projectIds": sorted(live_projects)},
    }
    if tracked.parent is not None:
        scenario["delegatedFrom"] = tracked.parent
        del scenario["ceiling"]  # a child's own ceiling is not the kit's to say
        if rule_id in ("ACCESS-1", "ACCESS-3"):
            return
    if rule_id in ("ACCESS-1", "ACCESS-2", "ACCESS-3"):
        check(
            isinstance(got_admin, bool) and isinstance(got_projects, list),
            "currentAccess() has a boolean admin and a list projectIds",
            access,
            scenario,
        )
    projects = frozenset(got_projects or ())
    if rule_id == "ACCESS-1":
        want_admin = live_admin and tracked.ceiling_admin
        want_projects = live_projects & tracked.ceiling_projects
        check(
            got_admin == want_admin and projects == want_projects and len(got_projects) == len(projects),
            f"access is the live policy intersected with the captured ceiling: admin {want_admin}, "
            f"projectIds {sorted(want_projects)}",
            access,
            scenario,
        )
    elif rule_id == "ACCESS-2":
        check(
            not (got_admin and not live_admin) and projects <= live_projects,
            "a demotion or Project revocation applies to the running session at once (access within the live "
            f"policy: admin only if live admin is {live_admin}, projectIds within {sorted(live_projects)})",
            access,
            scenario,
        )
    elif rule_id == "ACCESS-3":
        check(
            not (got_admin and not tracked.ceiling_admin) and projects <= tracked.ceiling_projects,
            "a later grant never widens the session beyond what it captured when it opened "
            f"(admin only if it was admin then; projectIds within {sorted(tracked.ceiling_projects)})",
            access,
            scenario,
        )
    elif tracked.parent is not None:
        most_admin = tracked.identity_admin and live_admin
        most_owner = tracked.identity_owner and live_owner
        check(
            not (identity.get("admin") is True and not most_admin)
            and not (identity.get("owner") is True and not most_owner),
            "a delegated child's currentIdentity() is never promoted beyond its parent's identity and the live "
            f"authority: admin only if {most_admin}, owner only if {most_owner}",
            identity,
            scenario,
        )
    else:
        want_admin = tracked.identity_admin and live_admin
        want_owner = tracked.identity_owner and live_owner
        check(
            identity.get("admin") is want_admin and identity.get("owner") is want_owner,
            "currentIdentity() keeps captured admin/owner only while live authority holds, and never promotes: "
            f"admin {want_admin}, owner {want_owner}",
            identity,
            scenario,
        )


#: What ``_check_access_rule`` judges at one step for one open session, but the rule: the session,
#: the live policy, its currentAccess() and currentIdentity() (or what reading it raised), the steps.
_Observation = tuple[_Tracked, JSON, JSON, JSON | BaseException, list[Any]]

#: What a failed read or check raises: kept with the observation, or met again when judged.
_FAILURES = (Exception, pytest.fail.Exception)

#: A run's observations of a passing walk, by seed and examples. The four machines have the same rules
#: and seed and read the same things (currentAccess() and currentIdentity() of every open session after
#: every step), so while they pass they walk the same steps and one walk's observations judge them all.
_WALKED = pytest.StashKey[dict[tuple[Any, ...], list[_Observation]]]()


def _judge(rule_id: str, observation: _Observation) -> None:
    """``rule_id`` on one observation; ACCESS-4 meets again what reading currentIdentity() raised."""
    tracked, live, access, identity, trace = observation
    if isinstance(identity, BaseException):
        if rule_id == "ACCESS-4":
            raise identity
        identity = {}  # ACCESS-1..3 judge currentAccess() alone
    _check_access_rule(rule_id, tracked, live, access, identity, trace)


def _read_identity(session: Session) -> JSON | BaseException:
    # Only ACCESS-4 judges currentIdentity(): a read that fails (or skips the check) is kept for it,
    # and the walk goes on for the rules that judge currentAccess().
    try:
        return session.identity()
    except (*_FAILURES, pytest.skip.Exception) as exc:
        return exc


def _machine(client: HostClient, rule_id: str, observed: list[_Observation]) -> type[RuleBasedStateMachine]:
    delegating = "delegation" in client.capabilities

    class AccessMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            client.reset()
            self.live: JSON = {"admin": False, "owner": False, "projectIds": []}
            self.tracked: list[_Tracked] = []
            self.trace: list[Any] = []

        def _policy(self, **changes: Any) -> None:
            client.set_policy(ACCOUNT, **changes)
            self.live.update(changes)
            self.trace.append({"do": "policy", "changes": changes})

        def _open(self, identity_admin: bool, identity_owner: bool) -> None:
            identity = {"userId": ACCOUNT, "admin": identity_admin, "owner": identity_owner}
            session = client.open(identity=identity)
            self.tracked.append(
                _Tracked(
                    session, self.live["admin"], frozenset(self.live["projectIds"]), identity_admin, identity_owner
                )
            )
            self.trace.append({"do": "open", "as": session.id, "identity": identity})

        def _delegate(self, parent: _Tracked) -> None:
            child = parent.session.delegate()
            self.tracked.append(
                _Tracked(
                    child,
                    parent.ceiling_admin,
                    parent.ceiling_projects,
                    parent.identity_admin,
                    parent.identity_owner,
                    parent=parent.session.id,
                )
            )
            self.trace.append({"do": "delegate", "from": parent.session.id, "as": child.id})

        @initialize(
            admin=st.booleans(),
            owner=st.booleans(),
            projects=st.sets(st.sampled_from(PROJECTS)),
            identity_admin=st.booleans(),
            identity_owner=st.booleans(),
        )
        def start(
            self, admin: bool, owner: bool, projects: set[str], identity_admin: bool, identity_owner: bool
        ) -> None:
            self._policy(admin=admin, owner=owner, projectIds=sorted(projects))
            self._open(identity_admin, identity_owner)
            if delegating:  # every walk has a child running below the first session
                self._delegate(self.tracked[0])

        @rule()
        def demote_admin(self) -> None:
            self._policy(admin=False)

        @rule()
        def promote_admin(self) -> None:
            self._policy(admin=True)

        @rule()
        def revoke_owner(self) -> None:
            self._policy(owner=False)

        @rule()
        def grant_owner(self) -> None:
            self._policy(owner=True)

        @rule(project=st.sampled_from(PROJECTS))
        def revoke_project(self, project: str) -> None:
            self._policy(projectIds=sorted(set(self.live["projectIds"]) - {project}))

        @rule(project=st.sampled_from(PROJECTS))
        def grant_project(self, project: str) -> None:
            self._policy(projectIds=sorted(set(self.live["projectIds"]) | {project}))

        @rule(projects=st.sets(st.sampled_from(PROJECTS)))
        def replace_projects(self, projects: set[str]) -> None:
            self._policy(projectIds=sorted(projects))

        @rule(identity_admin=st.booleans(), identity_owner=st.booleans())
        def open_another(self, identity_admin: bool, identity_owner: bool) -> None:
            # A new session captures the policy in force now; the older ones keep their own ceilings.
            if len(self.tracked) < 3:
                self._open(identity_admin, identity_owner)

        @rule(which=st.integers(min_value=0, max_value=3))
        def delegate_again(self, which: int) -> None:
            # A child of any open session or child, delegated under the policy in force now.
            if delegating and len(self.tracked) < 5:
                self._delegate(self.tracked[which % len(self.tracked)])

        @invariant()
        def rule_holds(self) -> None:
            for tracked in self.tracked:
                access = tracked.session.access()
                identity = _read_identity(tracked.session)
                observation = (tracked, dict(self.live), access, identity, list(self.trace))
                observed.append(observation)
                _judge(rule_id, observation)

    return AccessMachine


@pytest.mark.parametrize(
    "rule_id",
    [
        pytest.param(r, id=r, marks=[pytest.mark.toolconformance(r)])
        for r in ("ACCESS-1", "ACCESS-2", "ACCESS-3", "ACCESS-4")
    ],
)
def test_live_access_state_machine(
    toolconformance_host: HostClient, rule_id: str, request: pytest.FixtureRequest
) -> None:
    """Random sequences of policy changes; after every step, every open session obeys ``rule_id``.

    A rule judges the observations of an earlier one's passing walk when the run has one (the same
    steps its own machine would take); only when it fails there does its machine run, under
    Hypothesis, to meet the failure again and shrink it."""
    toolconformance_host.require("policy")
    settings = settings_for(30, stateful_step_count=12)
    walked = request.config.stash.setdefault(_WALKED, {})
    key = (options.active().seed, settings.max_examples, settings.stateful_step_count)
    first: BaseException | None = None
    if key in walked:
        try:
            for observation in walked[key]:
                _judge(rule_id, observation)
        except _FAILURES as exc:  # met again and shrunk below
            first = exc
        else:
            note_statistic(f"{len(walked[key])} observations of an earlier ACCESS check's walks, judged again")
            return
    observed: list[_Observation] = []
    run_state_machine_as_test(seeded(_machine(toolconformance_host, rule_id, observed)), settings=settings)
    if first is not None:
        raise first  # its own walk did not meet it again (a host that answers the same steps differently)
    walked[key] = observed


# -- ACCESS-5: re-read before each operation, also after an asynchronous wait ----------------------


@pytest.mark.toolconformance("ACCESS-5")
@pytest.mark.parametrize("wait", [0.0, 0.05], ids=["no-wait", "after-wait"])
def test_access5_reread_within_one_call(toolconformance_host: HostClient, wait: float) -> None:
    """A handler reads access and identity, the policy changes under it, it waits, and reads again:
    the second read sees the change."""
    toolconformance_host.require("registration", "calls", "policy")
    account = "acct-reread"
    handler: list[JSON] = [
        {"op": "access"},
        {"op": "identity"},
        {"op": "sleep", "seconds": wait},
        {"op": "policy", "account": account, "changes": {"admin": False, "owner": False, "projectIds": ["p1"]}},
        {"op": "sleep", "seconds": wait},
        {"op": "access"},
        {"op": "identity"},
        {"op": "text", "text": "read twice"},
    ]
    doc = plugin("reader", [tool("ReadTwice", handler=handler)])
    toolconformance_host.install_ok(doc)
    toolconformance_host.set_policy(account, admin=True, owner=True, projectIds=["p1", "p2"])
    session = toolconformance_host.open(identity={"userId": account, "admin": True, "owner": True})
    answer = session.call("ReadTwice", {})
    scenario = {
        "plugins": [doc],
        "policy": {account: {"admin": True, "owner": True, "projectIds": ["p1", "p2"]}},
        "open": session.spec,
        "call": "ReadTwice",
    }
    reads = [o for o in answer.get("observations") or [] if o.get("op") in ("access", "identity")]
    check(
        len(reads) == 4 and answer.get("handlerRan") is True,
        "the handler runs and its four reads (access, identity, access, identity) are observed",
        answer,
        scenario,
    )
    first_access, first_identity, second_access, second_identity = (r.get("value") or {} for r in reads)
    check(
        first_access.get("admin") is True,
        "the first read sees the policy in force when the call began (admin true)",
        reads,
        scenario,
    )
    check(
        second_access.get("admin") is False and "p2" not in (second_access.get("projectIds") or []),
        "the read after the policy changed (and after the wait) sees the change: admin false, "
        "p2 no longer in projectIds",
        reads,
        scenario,
    )
    check(
        first_identity.get("owner") is True
        and second_identity.get("owner") is False
        and second_identity.get("admin") is False,
        "currentIdentity() read after the change has lost owner and admin",
        reads,
        scenario,
    )
    after = session.access()
    check(after.get("admin") is False, "the next read outside the call sees the change too", after, scenario)


# -- ACCESS-6/7/8: the file tools against the real directory, generated ------------------------------

#: Directories the generated roots and paths are drawn from; ``ab`` catches a string-prefix match of ``a``.
_DIRS = ("a", "a/x", "ab", "b")
_ROOTS = st.lists(st.sampled_from(["/workspace"] + [f"/workspace/{d}" for d in _DIRS]), max_size=3, unique=True)
# The properties below are plain functions of their case, so they share their draws (profile.run_property):
# a later run reads the cases kept from the first instead of generating them under Hypothesis again.
_ROOTS_BEFORE_AFTER = name_strategy(st.tuples(_ROOTS, _ROOTS), f"{__name__}.roots before and after")
# The queue runs under roots that confine to somewhere (see ACCESS-6's check).
_ROOTS_QUEUED_RUN = name_strategy(st.tuples(_ROOTS, _ROOTS.filter(bool)), f"{__name__}.roots queued and run under")


def _within(guest: str, roots: list[str]) -> bool:
    parts = guest.split("/")
    return any(parts[: len(r.split("/"))] == r.split("/") for r in roots)


def _text(answer: JSON) -> str:
    return "\n".join(str(c.get("text", "")) for c in answer.get("content") or [] if isinstance(c, dict))


def _fresh_root() -> Any:
    import tempfile

    return tempfile.TemporaryDirectory(prefix="toolconformance-access-")


@pytest.mark.toolconformance("ACCESS-8")
def test_access8_file_tools_follow_current_access_roots(toolconformance_host: HostClient) -> None:
    """For random live roots, Read, ListDir and Write reach a path exactly when it lies inside the roots
    currentAccess() reports at that moment (component-wise: /workspace/a does not cover /workspace/ab)."""
    toolconformance_host.require("file-tools", "sandbox", "policy")
    client = toolconformance_host

    def run(case: tuple[list[str], list[str]]) -> None:
        before, after = case
        client.reset()
        with _fresh_root() as tmp:
            from pathlib import Path

            root = Path(tmp)
            for d in _DIRS:
                (root / d).mkdir(parents=True, exist_ok=True)
                (root / d / "f.txt").write_text(f"MARK-{d}-7f3", "utf-8")
            client.set_policy("acct-roots", roots=before)
            session = client.open(identity={"userId": "acct-roots"}, sandboxRoot=str(root))
            for roots in (before, after):  # the second round: the policy changed under the open session
                client.set_policy("acct-roots", roots=roots)
                reported = session.access().get("roots")
                scenario = {
                    "policy": {"roots": roots},
                    "open": {"sandboxRoot": "<tmp>"},
                    "reportedRoots": reported,
                    "files": [f"/workspace/{d}/f.txt" for d in _DIRS],
                }
                check(
                    isinstance(reported, list) and sorted(reported) == sorted(roots),
                    f"currentAccess().roots is the live policy's roots {roots}",
                    reported,
                    scenario,
                )
                for d in _DIRS:
                    guest = f"/workspace/{d}/f.txt"
                    inside = _within(guest, roots)
                    got = _text(session.call("Read", {"file_path": guest}))
                    check(
                        (f"MARK-{d}-7f3" in got) == inside,
                        f"Read {guest} {'returns' if inside else 'does not return'} the file under roots {roots}",
                        got,
                        {**scenario, "call": {"tool": "Read", "file_path": guest}},
                    )
                    listed = _text(session.call("ListDir", {"path": f"/workspace/{d}"}))
                    check(
                        ("f.txt" in listed) == _within(f"/workspace/{d}", roots),
                        f"ListDir /workspace/{d} lists its entries only inside roots {roots}",
                        listed,
                        {**scenario, "call": {"tool": "ListDir", "path": f"/workspace/{d}"}},
                    )
                    new = root / d / f"new-{len(roots)}-{roots is after}.txt"
                    guest_new = f"/workspace/{d}/{new.name}"
                    session.call("Write", {"file_path": guest_new, "content": "written"})
                    check(
                        new.exists() == _within(guest_new, roots),
                        f"Write {guest_new} {'creates' if _within(guest_new, roots) else 'does not create'} the file "
                        f"under roots {roots}",
                        {"exists": new.exists()},
                        {**scenario, "call": {"tool": "Write", "file_path": guest_new}},
                    )

    run_property(_ROOTS_BEFORE_AFTER, run, cap=25, share_draws=True)


@pytest.mark.toolconformance("ACCESS-6")
def test_access6_queue_rechecks_roots_at_run_time(toolconformance_host: HostClient) -> None:
    """Queue Writes under one set of roots, change the roots, run the queue: each file exists exactly when
    its path lies inside the roots in force when the queue runs, whatever they were when it was queued."""
    toolconformance_host.require("file-tools", "mutation-queue", "sandbox", "policy")
    client = toolconformance_host

    # The queue runs under roots that confine to somewhere: no roots at all is ACCESS-8's empty-roots case
    # (a host reading them as every root breaks that, not the recheck); the queue under no roots is a
    # scenario with that reading as its ACCESS-8 precondition (access/queued-write-refused-after-roots-revoked).
    def run(case: tuple[list[str], list[str]]) -> None:
        queued_under, run_under = case
        client.reset()
        with _fresh_root() as tmp:
            from pathlib import Path

            root = Path(tmp)
            client.set_policy("acct-queue", roots=queued_under)
            session = client.open(identity={"userId": "acct-queue"}, sandboxRoot=str(root))
            targets = [f"/workspace/{d}/queued.txt" for d in _DIRS]
            for guest in targets:
                session.queue_call("Write", {"file_path": guest, "content": "queued"})
            client.set_policy("acct-queue", roots=run_under)
            outcomes = session.run_queued()
            scenario = {"queuedUnderRoots": queued_under, "runUnderRoots": run_under, "queued": targets}
            check(len(outcomes) == len(targets), "one outcome per queued Write", outcomes, scenario)
            for guest in targets:
                exists = (root / guest.removeprefix("/workspace/")).exists()
                inside = _within(guest, run_under)
                if exists != inside:
                    _direct_write_follows_roots(session, root, guest, run_under, scenario)
                check(
                    exists == inside,
                    f"queued Write {guest} {'runs' if inside else 'is refused inside the queue'}: the roots in force "
                    f"when the queue runs are {run_under}",
                    {"exists": exists},
                    scenario,
                )

    run_property(_ROOTS_QUEUED_RUN, run, cap=25, share_draws=True)


def _direct_write_follows_roots(session: Session, root: Any, guest: str, roots: list[str], scenario: JSON) -> None:
    """A queued Write whose outcome the roots in force when the queue ran do not explain is ACCESS-6's fault
    only where a direct Write beside it, under those same roots, is decided right: where the direct one is
    wrongly admitted (or refused) too, the sandbox misreads the roots themselves (a root matched as a string
    prefix, say), and the check is blocked by ACCESS-8."""
    probe = guest.rsplit("/", 1)[0] + "/direct.txt"
    session.call("Write", {"file_path": probe, "content": "direct"})
    direct = (root / probe.removeprefix("/workspace/")).exists()
    inside = _within(probe, roots)
    precondition(
        direct == inside,
        "ACCESS-8",
        f"a direct Write of {probe} under the roots {roots} to be {'admitted' if inside else 'refused'} (the "
        "queue's recheck is judged against roots the file tools follow at all)",
        {"exists": direct, **scenario},
    )


#: What a history does: this session's or the other one's Read, Write or Edit, or a change made on disk.
_GUARD_ACTIONS = st.lists(
    st.sampled_from(["read", "change", "write", "edit", "other read", "other write", "other edit"]),
    min_size=1,
    max_size=8,
)
_GUARD_HISTORIES = name_strategy(st.tuples(_GUARD_ACTIONS, st.booleans()), f"{__name__}.guard histories")
#: Both sessions read the file, the other one changes it, this one writes over the change (and edits after
#: reading again): met whatever the example budget.
_GUARD_TWO_SESSIONS = (["read", "other read", "other write", "write", "read", "other edit", "edit"], True)


@pytest.mark.toolconformance("ACCESS-7")
def test_access7_guard_over_random_histories(toolconformance_host: HostClient) -> None:
    """Random histories of two sessions over one workspace (Read, Write and Edit by each) and out-of-band
    changes: a Write/Edit goes through exactly when the file is new or its bytes are those the calling
    session last read or wrote; a change by the other session is a change since it was read, like one on disk."""
    toolconformance_host.require("file-tools", "sandbox")
    client = toolconformance_host

    def run(case: tuple[list[str], bool]) -> None:
        actions, exists_first = case
        client.reset()
        with _fresh_root() as tmp:
            from pathlib import Path

            path = Path(tmp) / "doc.txt"
            if exists_first:
                path.write_text("start @@\n", "utf-8")
            sessions = {
                who: client.open(identity={"userId": "acct-guard"}, sandboxRoot=str(tmp)) for who in ("this", "other")
            }
            seen: dict[str, str | None] = dict.fromkeys(sessions)  # what each session last read or wrote
            history: list[JSON] = [{"file": "doc.txt", "exists": exists_first, "sessions": ["this", "other"]}]
            for n, step in enumerate(actions):
                who, _, action = step.rpartition(" ")
                who = who or "this"
                session = sessions[who]
                disk = path.read_text("utf-8") if path.exists() else None
                if action == "read":
                    session.call("Read", {"file_path": "/workspace/doc.txt"})
                    seen[who] = disk if disk is not None else seen[who]
                    history.append({"session": who, "call": "Read"})
                    continue
                if action == "change":
                    path.write_text(f"changed out of band {n} @@\n", "utf-8")
                    history.append({"outOfBand": "changed"})
                    continue
                allowed = disk is None or disk == seen[who]
                if action == "write":
                    new = f"written {n} by {who} @@\n"
                    session.call("Write", {"file_path": "/workspace/doc.txt", "content": new})
                else:
                    if disk is None:
                        continue  # Edit needs a file; a missing one is no ACCESS-7 question
                    new = disk.replace("@@", "@@.", 1)
                    session.call("Edit", {"file_path": "/workspace/doc.txt", "old_string": "@@", "new_string": "@@."})
                history.append({"session": who, "call": action.capitalize(), "guardAllows": allowed})
                after = path.read_text("utf-8") if path.exists() else None
                want = new if allowed else disk
                check(
                    after == want,
                    f"{who.capitalize()} session's {action.capitalize()} "
                    f"{'goes through' if allowed else 'is refused: the bytes changed since it read them'}"
                    f" (file now {want!r})",
                    {"file": after},
                    {"steps": history},
                )
                if allowed:
                    seen[who] = new

    run_property(_GUARD_HISTORIES, run, cap=30, examples=[_GUARD_TWO_SESSIONS], share_draws=True)
