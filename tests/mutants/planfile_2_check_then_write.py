"""PLANFILE-2 broken by a race: the way to the plan file is checked for links first and then written
by path, which follows whatever link was swapped in meanwhile (a check-then-use window).

Static links are still refused, so only the race check (a thread swapping a link in and out of the
plan file's parent) catches this one.
"""

from __future__ import annotations

import os
import time

from pytest_toolconformance.adapters.reference import ReferenceHostAdapter
from reference_host.sandbox import Components, Rewrite, Sandbox, SandboxRefusal
from tests.mutants._access_support import mutant_host

RULE = "PLANFILE-2"


class CheckThenWriteSandbox(Sandbox):
    def write_bytes(
        self, comps: Components, data: bytes, *, create_parents: bool = True, rewrite: Rewrite | None = None
    ) -> bytes:
        path = self.root
        for name in comps:
            path = path / name
            if path.is_symlink():
                raise SandboxRefusal(f"{self.guest_path(comps)!r} passes through a link", security=True)
        time.sleep(0.0005)  # the work a real host does between checking and opening
        if create_parents:
            os.makedirs(path.parent, exist_ok=True)
        out = rewrite(path.read_bytes() if path.is_file() else None) if rewrite else data
        with open(path, "wb") as fh:
            fh.write(out)
        return out


def factory() -> ReferenceHostAdapter:
    return mutant_host(sandbox_class=CheckThenWriteSandbox)
