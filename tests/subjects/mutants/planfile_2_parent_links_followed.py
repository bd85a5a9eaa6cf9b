"""PLANFILE-2 broken: directories on the way to the plan file are opened following links, so a link
in a parent redirects the plan write out of the root."""

from __future__ import annotations

import os

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Components, Sandbox, SandboxRefusal
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-2"
ALSO = {
    "ACCESS-6": "the queued write behind a planted link is admitted through the link",
    "PLANFILE-4": "the paired executor behind a linked parent uses the same path walk",
}
_FOLLOW = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class FollowingSandbox(Sandbox):
    def _open_child_dir(self, parent_fd: int, name: str, comps: Components, create: bool) -> int:
        try:
            try:
                return os.open(name, _FOLLOW, dir_fd=parent_fd)
            except FileNotFoundError:
                if not create:
                    raise
            try:
                os.mkdir(name, 0o755, dir_fd=parent_fd)
            except FileExistsError:
                pass
            return os.open(name, _FOLLOW, dir_fd=parent_fd)
        except OSError as err:
            raise SandboxRefusal(f"{self.guest_path(comps)!r} could not be opened ({err.strerror})") from err


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=FollowingSandbox)
