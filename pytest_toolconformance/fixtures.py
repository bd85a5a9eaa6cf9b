"""Public fixtures: the host under test, fake identities and accesses, plan-file sandboxes.

They work in a plugin author's own tests with or without ``--toolconformance``; without it,
``toolconformance_host`` is the host ``toolconformance_host`` (ini) names, by default the reference host.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from faker import Faker

from . import settings as settings_module
from .client import HostClient, Session
from .hostspec import HostSpecError, load_host

IDENTITY_KINDS = ("guest", "member", "admin", "owner", "revoked")


@pytest.fixture(scope="session")
def toolconformance_settings() -> settings_module.Settings:
    """The kit's settings for this run (options and ini)."""
    return settings_module.current()


@pytest.fixture(scope="session")
def toolconformance_adapter(request: pytest.FixtureRequest, toolconformance_settings: settings_module.Settings) -> Iterator[Any]:
    """The raw adapter of the host under test, one per run (per xdist worker)."""
    from .plugin import ADAPTER_KEY

    adapter = request.config.stash.get(ADAPTER_KEY, None)
    if adapter is not None:
        yield adapter
        return
    try:
        adapter = load_host(toolconformance_settings.host, search_paths=[request.config.rootpath],
                            timeout=toolconformance_settings.timeout)
    except HostSpecError as exc:
        raise pytest.UsageError(str(exc)) from None
    yield adapter
    adapter.close()


@pytest.fixture
def toolconformance_host(toolconformance_adapter: Any) -> HostClient:
    """The host under test, reset to a fresh state for this test."""
    toolconformance_adapter.reset()
    return HostClient(toolconformance_adapter)


def _faker_for(request: pytest.FixtureRequest) -> Faker:
    seed = settings_module.current().seed
    if seed is None:
        # Deterministic per test: the same test gets the same people on every run.
        seed = int.from_bytes(hashlib.sha256(request.node.nodeid.encode()).digest()[:4], "big")
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


def make_access(fake: Faker, *, read_only: bool = False, plan_mode: bool = False, admin: bool = False,
                plan_file: str | None = None, project_ids: list[str] | None = None) -> dict[str, Any]:
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
class PlanFileSandbox:
    """A Plan turn on a managed Project conversation, its plan path, and the real directory behind it."""

    host: HostClient
    session: Session
    root: Path
    plan_file: str

    def host_path(self, guest_path: str) -> Path:
        return self.root / guest_path.removeprefix("/workspace").lstrip("/")

    def write_plan(self, content: str = "# plan\n") -> dict[str, Any]:
        return self.session.sandbox({"kind": "write", "path": self.plan_file, "content": content})


@pytest.fixture
def plan_file_sandbox(toolconformance_host: HostClient, tmp_path: Path) -> PlanFileSandbox:
    """A Plan turn with its plan path in a temporary sandbox (needs the ``plan-file`` capability)."""
    toolconformance_host.require("sandbox", "plan-file")
    root = tmp_path / "root"
    root.mkdir()
    session = toolconformance_host.open(
        identity={"userId": "planner"}, conversation="managed", projectId="proj-plan", mode="plan",
        sandboxRoot=str(root),
    )
    plan_file = session.access().get("planFile")
    if not isinstance(plan_file, str):
        pytest.fail(f"[PLANFILE-1] a managed Project Plan turn has no planFile in currentAccess(): {session.access()}")
    return PlanFileSandbox(toolconformance_host, session, root, plan_file)


__all__ = [
    "FakeIdentity",
    "PlanFileSandbox",
    "fake_access",
    "fake_identity",
    "make_access",
    "make_identity",
    "plan_file_sandbox",
    "toolconformance_adapter",
    "toolconformance_host",
    "toolconformance_settings",
]
