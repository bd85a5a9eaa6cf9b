"""Plumbing for the access, delegation and sandbox mutants.

The reference host builds sessions (opened and delegated), sandboxes and file tools itself, so a
mutant host re-classes each new one to a broken subclass. Unlike ``_calls_support.session_mutant``
this also reaches delegated children, which the delegation rules are about.
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.sandbox import FileTools, Sandbox, SandboxAccess
from reference_host.session import Session
from tests.subjects.mutants.base import plumbing


def mutant_host(
    *,
    session_class: type[Session] | None = None,
    sandbox_class: type[Sandbox] | None = None,
    file_tools_class: type[FileTools] | None = None,
    host_class: type[Host] = Host,
) -> ReferenceHostAdapter:
    """An adapter over a host whose sessions, sandboxes and file tools are the given subclasses."""

    class MutantHost(host_class):  # type: ignore[valid-type,misc]
        @plumbing
        def adopt(self, session: Session) -> None:
            if session_class is not None:
                session.__class__ = session_class
            super().adopt(session)

        @plumbing
        def sandbox_for(self, root: Any) -> Any:
            sandbox = super().sandbox_for(root)
            if sandbox_class is not None and type(sandbox) is not sandbox_class:
                sandbox.__class__ = sandbox_class
            return sandbox

        @plumbing
        def file_tools_for(self, root: Any) -> Any:
            tools = super().file_tools_for(root)
            if file_tools_class is not None and type(tools) is not file_tools_class:
                tools.__class__ = file_tools_class
            return tools

    return ReferenceHostAdapter(host_factory=MutantHost)


class UnconfinedToolSession(Session):
    """A session whose core tools that :meth:`unconfined` picks run with the whole workspace as their
    root, whatever roots the live policy (and so ``currentAccess()``) gives: one tool forgotten (ACCESS-8)."""

    def unconfined(self, name: str, params: dict[str, Any]) -> bool:
        return False

    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if not self.unconfined(name, params):
            return super().run_core_tool(name, call_id, params)

        def everywhere() -> SandboxAccess:
            access = Session.sandbox_access(self)
            return SandboxAccess(read_only=access.read_only, plan_file=access.plan_file)

        self.sandbox_access = everywhere  # type: ignore[method-assign]
        try:
            return super().run_core_tool(name, call_id, params)
        finally:
            del self.sandbox_access
