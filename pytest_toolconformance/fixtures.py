"""Public fixtures: the host under test, fake identities and accesses, plan-file sandboxes.

They work in a plugin author's own tests with or without ``--toolconformance``; without it,
``toolconformance_host`` is the host ``toolconformance_host`` (ini) names, by default the reference host.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from faker import Faker

from pytest_toolconformance import bounds, options
from pytest_toolconformance.host import attacks
from pytest_toolconformance.host.client import HostClient, Session, check
from pytest_toolconformance.host.connect import configured_adapter
from pytest_toolconformance.host.contract import HostAdapter
from pytest_toolconformance.host.errors import HostProtocolError
from pytest_toolconformance.host.wire.errors import WireHostUnusable

IDENTITY_KINDS = ("guest", "member", "admin", "owner", "revoked")


@pytest.fixture(scope="session")
def toolconformance_settings(request: pytest.FixtureRequest) -> options.Settings:
    """The kit's settings for this run (options and ini)."""
    return options.of(request.config)


@pytest.fixture(scope="session")
def toolconformance_adapter(
    request: pytest.FixtureRequest, toolconformance_settings: options.Settings
) -> HostAdapter:
    """The raw adapter of the host under test, one per run (per xdist worker), from ``config.stash``."""
    calibration = bounds.of(request.config)
    return configured_adapter(request.config, toolconformance_settings.host,
                              timeout=calibration.bound(toolconformance_settings.timeout),
                              startup_timeout=calibration.bound(toolconformance_settings.startup_timeout))


class HostNotReset(pytest.fail.Exception):
    """The host could not be reset for a check: its fault said once, without the kit's frames.

    ``host_fault`` is the fault itself, for the hooks that tell an errored check from a failed one.
    """

    def __init__(self, host_fault: BaseException) -> None:
        super().__init__(str(host_fault), pytrace=False)
        self.host_fault = host_fault


@pytest.fixture
def toolconformance_host(toolconformance_adapter: HostAdapter) -> HostClient:
    """The host under test, reset to a fresh state for this test."""
    try:
        toolconformance_adapter.reset()
    except (WireHostUnusable, HostProtocolError) as exc:
        fault: BaseException = exc
    else:
        return HostClient(toolconformance_adapter)
    if isinstance(fault, WireHostUnusable) and fault.original.fault == "gave-up":
        # The kit gave up on the host: the check runs to its first request, which errors in one line
        # (report.outcomes), so a check of a capability the host never declared skips as usual.
        return HostClient(toolconformance_adapter)
    # The message names the host and its fault; a traceback would show only the kit's client. Raised
    # outside the handler so pytest has no chain to format either: reading the source of every frame
    # of every check was two thirds of a profiled run against a host the kit gave up on (crash_host).
    # (WireHostUnusable is a BaseException so hypothesis stops at once; a fixture must fail ordinarily.)
    raise HostNotReset(fault)


@pytest.fixture(scope="session")
def _toolconformance_folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("checks")


@pytest.fixture
def toolconformance_folder(_toolconformance_folders: Path, request: pytest.FixtureRequest) -> Path:
    """A fresh empty folder for this check, inside the run's pytest temporary folder (kept and removed
    as pytest keeps its own). Not ``tmp_path``: pytest lists every folder made before to number a new
    one, which over a host run's ~560 folders cost it about 5 % of its time."""
    prefix = re.sub(r"\W", "_", request.node.name)[:30]
    return Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=_toolconformance_folders))


def _faker_for(request: pytest.FixtureRequest) -> Faker:
    # Deterministic per test and seed: the same test gets the same people on every run with that seed.
    key = f"{options.of(request.config).seed}:{request.node.nodeid}"
    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big")
    fake = Faker()
    fake.seed_instance(seed)
    return fake


@dataclass(frozen=True)
class FakeIdentity:
    """A session identity plus the live policy that makes it what its kind says."""

    kind: str
    identity: dict[str, Any]
    policy: dict[str, Any]

    @property
    def user_id(self) -> str:
        return str(self.identity["userId"])


def make_identity(fake: Faker, kind: str = "member", *, project_ids: list[str] | None = None) -> FakeIdentity:
    """Build an identity of ``kind``: guest, member, admin, owner, or revoked (an admin whose live
    authority has been taken away)."""
    if kind not in IDENTITY_KINDS:
        raise ValueError(f"identity kind {kind!r} is unknown; use one of {IDENTITY_KINDS}")
    user_id = f"{fake.user_name()}-{fake.hexify('^^^^')}"
    projects = project_ids if project_ids is not None else [f"proj-{fake.hexify('^^^^^')}" for _ in range(2)]
    admin = kind in ("admin", "owner", "revoked")
    owner = kind in ("owner", "revoked")
    identity = {"userId": user_id, "owner": owner, "admin": admin, "displayName": fake.name()}
    policy = {
        "admin": admin and kind != "revoked",
        "owner": owner and kind != "revoked",
        "projectIds": [] if kind == "guest" else projects,
        "pluginGrants": [] if kind == "guest" else ["*"],
    }
    return FakeIdentity(kind=kind, identity=identity, policy=policy)


@pytest.fixture
def fake_identity(request: pytest.FixtureRequest) -> Callable[..., FakeIdentity]:
    """Factory: ``fake_identity("admin")`` -> :class:`FakeIdentity` (deterministic per test, or
    under ``--toolconformance-seed``). Pass ``.identity`` in a session spec and apply ``.policy``
    with ``host.set_policy(identity.user_id, **identity.policy)``."""
    fake = _faker_for(request)
    return lambda kind="member", **kw: make_identity(fake, kind, **kw)


def make_access(
    fake: Faker,
    *,
    read_only: bool = False,
    plan_mode: bool = False,
    admin: bool = False,
    plan_file: str | None = None,
    project_ids: list[str] | None = None,
) -> dict[str, Any]:
    """An access descriptor as ``currentAccess()`` returns it."""
    access: dict[str, Any] = {
        "admin": admin,
        "projectIds": project_ids if project_ids is not None else [f"proj-{fake.hexify('^^^^^')}"],
        "readOnly": read_only or plan_mode,
        "planMode": plan_mode,
        "roots": ["/workspace"],
        "principal": fake.user_name(),
    }
    if plan_file is not None:
        access["planFile"] = plan_file
    return access


@pytest.fixture
def fake_access(request: pytest.FixtureRequest) -> Callable[..., dict[str, Any]]:
    """Factory of access descriptors: ``fake_access(plan_mode=True, plan_file="/workspace/p.md")``."""
    fake = _faker_for(request)
    return lambda **kw: make_access(fake, **kw)


@dataclass
class PreparedAttack:
    """One attack-table row made concrete: the turn to run it in, the op, and the world before it."""

    attack: attacks.Attack
    session: Session
    op: dict[str, Any]
    names: dict[str, str]
    root_before: dict[str, Any]
    outside_before: dict[str, Any]


@dataclass
class PlanFileSandbox:
    """A Plan turn on a managed Project conversation, its plan path, and the real directory behind it.

    ``outside`` is a real directory beside ``root`` (holding ``secret.txt``) that no operation may
    ever reach; the attack table (:mod:`pytest_toolconformance.host.attacks`) plants links to it.
    """

    host: HostClient
    session: Session
    root: Path
    plan_file: str
    outside: Path
    spec: dict[str, Any] = field(default_factory=dict)

    def host_path(self, guest_path: str) -> Path:
        """The real path behind a guest path."""
        return attacks.host_path(self.root, guest_path)

    def write_plan(self, content: str = "# plan\n") -> dict[str, Any]:
        return self.session.sandbox({"kind": "write", "path": self.plan_file, "content": content})

    def names(self, plan_file: str | None = None) -> dict[str, str]:
        """The attack table's template variables for this sandbox (or for another plan path)."""
        return attacks.variables(plan_file or self.plan_file, self.root, self.outside)

    def plan_turn(self, plan_file: str) -> Session:
        """Another Plan turn over the same root whose spec names ``plan_file``; skips the test when the
        host mints another path instead."""
        session = self.host.open(**{**self.spec, "planFile": plan_file})
        got = session.access().get("planFile")
        if got != plan_file:
            pytest.skip(f"host minted planFile {got!r} although the spec named {plan_file!r}")
        return session

    def child(self, parent: Session | None = None, plan_file: str | None = None) -> Session:
        """A read-only child of the Plan turn whose delegation request tries to forward ``planFile``
        and to clear ``readOnly`` and ``planMode`` (a conforming host ignores all three)."""
        requested = {"planFile": plan_file or self.plan_file, "readOnly": False, "planMode": False}
        return (parent or self.session).delegate(read_only=True, requested=requested)

    def prepare(self, attack: attacks.Attack) -> PreparedAttack:
        """Plant ``attack``'s trap and return the concrete operation and the turn to run it in.

        Skips the calling test when the host lacks a capability the row needs or its plan path has
        no room for the row (a plan file directly under the guest root has no parent to link)."""
        caps = [r for r in attack.requires if r not in ("plan-parent", "plan-grandparent")]
        if caps:
            self.host.require(*caps)
        session, plan = self.session, self.plan_file
        if attack.plan_file is not None:
            session = self.plan_turn(attacks.expand(attack.plan_file, self.names()))
            plan = str(session.access()["planFile"])
        problem = attacks.layout_problem(attack, plan)
        if problem:
            pytest.skip(problem)
        names = self.names(plan)
        attacks.plant(attacks.expand(list(attack.setup), names), self.root)
        if attack.via == "child":
            session = self.child(session, plan)
        # Planting a hard link changes the outside file's link count: judge what comes after the trap.
        self._outside_at_start = attacks.snapshot(self.outside)
        return PreparedAttack(
            attack,
            session,
            attacks.expand(dict(attack.op), names),
            names,
            attacks.snapshot(self.root),
            self._outside_at_start,
        )

    def run_attack(self, attack: attacks.Attack) -> attacks.Verdict:
        """Prepare ``attack``, ask the host's sandbox for its operation, and judge the outcome."""
        prepared = self.prepare(attack)
        answer = prepared.session.sandbox(prepared.op)
        return attacks.verify(
            attack,
            prepared.op,
            answer,
            root=self.root,
            outside=self.outside,
            root_before=prepared.root_before,
            outside_before=prepared.outside_before,
            names=prepared.names,
        )

    def outside_changes(self) -> list[str]:
        """What changed outside the root since the fixture was made, or since the last :meth:`prepare`
        planted its trap (should be nothing)."""
        return attacks.changes(self._outside_at_start, attacks.snapshot(self.outside))

    def assert_outside_untouched(self) -> None:
        """Fail, naming PLANFILE-2, when anything outside the root changed."""
        moved = self.outside_changes()
        check(
            not moved,
            "nothing outside the sandbox root changes",
            {"outsideChanges": moved},
            {"planFile": self.plan_file},
            rule="PLANFILE-2",
        )

    def __post_init__(self) -> None:
        self._outside_at_start = attacks.snapshot(self.outside)


@pytest.fixture
def plan_file_sandbox(toolconformance_host: HostClient, toolconformance_folder: Path) -> PlanFileSandbox:
    """A Plan turn with its plan path in a temporary sandbox (needs the ``plan-file`` capability)."""
    toolconformance_host.require("sandbox", "plan-file")
    try:
        return _plan_file_sandbox(toolconformance_host, toolconformance_folder)
    except WireHostUnusable as exc:
        fault = exc
    # A fixture must fail ordinarily (a BaseException in set-up leaves pytest's fixtures half torn down).
    raise HostNotReset(fault)


def _plan_file_sandbox(toolconformance_host: HostClient, toolconformance_folder: Path) -> PlanFileSandbox:
    root = toolconformance_folder / "root"
    root.mkdir()
    outside = toolconformance_folder / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(attacks.SECRET, "utf-8")
    spec = {
        "identity": {"userId": "planner"},
        "conversation": "managed",
        "projectId": "proj-plan",
        "mode": "plan",
        "sandboxRoot": str(root),
    }
    session = toolconformance_host.open(**spec)
    plan_file = session.access().get("planFile")
    check(
        isinstance(plan_file, str),
        "a managed Project Plan turn has a planFile in currentAccess()",
        session.access(),
        {"session": spec},
        rule="PLANFILE-1",
    )
    return PlanFileSandbox(toolconformance_host, session, root, plan_file, outside, spec)


__all__ = [
    "FakeIdentity",
    "PlanFileSandbox",
    "PreparedAttack",
    "fake_access",
    "fake_identity",
    "make_access",
    "make_identity",
    "plan_file_sandbox",
    "toolconformance_adapter",
    "toolconformance_host",
    "toolconformance_settings",
]
