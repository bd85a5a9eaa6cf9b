"""A session's workspace, and the core workspace tools over it (ACCESS-5..8, PLANFILE-2, PLANFILE-6).

A :class:`Workspace` is the session's root directory, the sandbox over it and the core file tools
(one mutation queue per root); the host builds it and hands it to the session, and a delegated
child shares its parent's. Every file tool goes through :class:`~reference_host.sandbox.FileTools`
with the session's live access provider, so access is evaluated immediately before each
operation, and Write/Edit go through the mutation queue, which rechecks the anchored path when
the entry runs.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .bash import run_command
from .errors import SandboxError
from .sandbox import AccessProvider, FileTools, Sandbox, SandboxOp
from .tools import text_result

#: How a workspace gets the sandbox and file tools for its root (the host keeps one pair per directory).
OpenFiles = Callable[[Path], tuple[Sandbox, FileTools]]
#: How a workspace whose spec named no root gets a temporary one (the host removes it when it closes).
MakeRoot = Callable[[], Path]

_RESULT_KEYS_HIDDEN = ("text", "ok")


class Workspace:
    """One root directory with its sandbox and file tools, opened on first use and then kept.

    Kept, not looked up again: a session whose ``sandboxRoot`` path is later retargeted (an
    ancestor link pointed elsewhere) goes on working in the directory it opened."""

    def __init__(self, root: Path | None, open_files: OpenFiles, make_root: MakeRoot) -> None:
        self._root = root
        self._open_files = open_files
        self._make_root = make_root
        self._files: tuple[Sandbox, FileTools] | None = None
        self._lock = threading.Lock()

    def root(self) -> Path:
        """The host directory; a temporary one is made on first use when the spec named none."""
        with self._lock:
            if self._root is None:
                self._root = self._make_root()
            return self._root

    def _opened(self) -> tuple[Sandbox, FileTools]:
        root = self.root()
        with self._lock:
            if self._files is None:
                self._files = self._open_files(root)
            return self._files

    def sandbox(self) -> Sandbox:
        """The sandbox over this workspace's root."""
        return self._opened()[0]

    def file_tools(self) -> FileTools:
        """The core file tools (and mutation queue) over this workspace's sandbox."""
        return self._opened()[1]


def as_tool_result(result: dict[str, Any]) -> dict[str, Any]:
    """A FileTools/bash result dict as a tool result: the text for the model, the rest as details.

    A refusal stays a text result the model can act on (ERR-2)."""
    details = {k: v for k, v in result.items() if k not in _RESULT_KEYS_HIDDEN and _jsonable(v)}
    details["ok"] = bool(result.get("ok"))
    return text_result(str(result.get("text", "")), details)


def _jsonable(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool, type(None), list, dict))


def _refusal(text: str, rule: str | None = None) -> dict[str, Any]:
    return text_result(text, {"ok": False, "rule": rule})


def run_workspace_tool(
    workspace: Workspace, name: str, params: dict[str, Any], *, access: AccessProvider, read_state_key: str,
    timeout: float,
) -> dict[str, Any]:
    """Run one core workspace tool in ``workspace`` under the live ``access`` provider."""
    tools = workspace.file_tools()
    key = read_state_key
    root_scope = "/workspace"
    if name == "Read":
        return as_tool_result(tools.read(access, params["file_path"], key))
    if name == "Write":
        return as_tool_result(tools.write(access, params["file_path"], params["content"], key))
    if name == "Edit":
        return as_tool_result(tools.edit(access, params["file_path"], params["old_string"], params["new_string"], key))
    if name == "ListDir":
        return as_tool_result(tools.list_dir(access, params["path"]))
    if name == "FileInfo":
        return as_tool_result(tools.file_info(access, params["path"]))
    if name == "Glob":
        return as_tool_result(tools.glob(access, params.get("path", root_scope), params["pattern"]))
    if name == "Grep":
        return as_tool_result(tools.grep(access, params.get("path", root_scope), params["pattern"]))
    if name == "Search":
        return as_tool_result(tools.grep(access, params.get("path", root_scope), re.escape(params["query"])))
    if name == "GitStatus":
        # ACCESS-8: GitStatus is a directory tool (its path is a scope, as ListDir's): the scope is held
        # to the live roots, and the "." pathspec keeps a repository above the scope from listing files
        # outside it.
        scope = params.get("path", root_scope)
        refusal = workspace.sandbox().check(SandboxOp("list", scope), access())
        if refusal is not None:
            return _refusal(f"GitStatus: {refusal.reason}", refusal.rule)
        return _run_shell(workspace, "git status --short --untracked-files=all -- .", scope, access, timeout)
    if name == "Bash":
        return _run_shell(workspace, params["command"], params.get("cwd"), access, timeout)
    if name in ("ShareFile", "ShareImage", "WorkflowStart", "EditImage"):
        file_path = params.get("file_path")
        if not isinstance(file_path, str):
            return text_result(f"{name} shared the latest image.") if params.get("latest") is True else _refusal(
                f"{name} needs file_path."
            )
        info = tools.file_info(access, file_path)
        if not info.get("ok"):
            return as_tool_result(info)
        if name == "EditImage":
            return _refusal("EditImage: image editing is not modelled by the reference host; nothing was written.")
        verb = {"ShareFile": "Shared", "ShareImage": "Shared image", "WorkflowStart": "Started workflow from"}[name]
        return text_result(f"{verb} {file_path}.", {"ok": True, "file_path": file_path})
    return _refusal(f"{name} is not a workspace tool of this host.")


def _run_shell(
    workspace: Workspace, command: str, guest_cwd: str | None, access: AccessProvider, timeout: float
) -> dict[str, Any]:
    root = workspace.root()
    sandbox = workspace.sandbox()
    try:
        comps = sandbox.resolve_guest_path(guest_cwd) if guest_cwd else ()
    except SandboxError as exc:
        return _refusal(f"Bash: working directory {guest_cwd!r} is not usable: {exc.detail}", "ACCESS-8")
    read_only = access().read_only  # read now, immediately before the command (ACCESS-5)
    cwd = root.joinpath(*comps)
    result = run_command(command, cwd=cwd, read_only=read_only, root=root, timeout=min(timeout, 30.0))
    return as_tool_result(result)
