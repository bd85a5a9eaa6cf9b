"""PLANFILE-2 broken by a race: the way to the plan file is checked for links first and then written
by path, which follows whatever link was swapped in meanwhile (a check-then-use window).

Static links are still refused, so only the race check (a thread swapping a link in and out of the
plan file's parent) catches this one.
"""

from __future__ import annotations

import os
import time

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.sandbox import Components, Rewrite, Sandbox, SandboxRefusal
from tests.subjects.mutants._access_support import mutant_host

RULE = "PLANFILE-2"


class CheckThenWriteSandbox(Sandbox):
    def write_bytes(
        self, comps: Components, data: bytes, *, create_parents: bool = True, rewrite: Rewrite | None = None
    ) -> bytes:
        # The check: the link-safe walk, as the reference does it, whose fd is then thrown away...
        os.close(self._open_dir(comps[:-1], create=create_parents))
        time.sleep(0.0002)  # (the work a real host does between checking and opening)
        # ...and the use: the same directory reopened by path, following whatever is there now.
        parent = os.path.join(self.root, *comps[:-1])
        try:
            dir_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as err:
            raise SandboxRefusal(f"{parent} could not be opened ({err.strerror})") from err
        try:
            return self._write_at(dir_fd, comps[-1], comps, data, rewrite)
        finally:
            os.close(dir_fd)


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=CheckThenWriteSandbox)
