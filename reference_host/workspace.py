"""The core workspace tools over the session's sandbox (ACCESS-5..8, PLANFILE-2, PLANFILE-6).

Every file tool goes through :class:`~reference_host.sandbox.FileTools` with the session's live
access provider, so access is evaluated immediately before each operation, and Write/Edit go
through the mutation queue, which rechecks the anchored path when the entry runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .bash import run_command
from .errors import SandboxError
from .tools import text_result

if TYPE_CHECKING:
    from .session import Session

_RESULT_KEYS_HIDDEN = ("text", "ok")


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


def run_workspace_tool(session: Session, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run one core workspace tool for ``session``."""
    tools = session.file_tools()
    access = session.sandbox_access
    key = session.read_state_key()
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
        import re

        return as_tool_result(tools.grep(access, params.get("path", root_scope), re.escape(params["query"])))
    if name in ("Bash", "GitStatus"):
        return _run_shell(session, "git status --short" if name == "GitStatus" else params["command"],
                          params.get("cwd") if name == "Bash" else params.get("path"))
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


def _run_shell(session: Session, command: str, guest_cwd: str | None) -> dict[str, Any]:
    root = session.sandbox_root()
    sandbox = session.sandbox()
    try:
        comps = sandbox.resolve_guest_path(guest_cwd) if guest_cwd else ()
    except SandboxError as exc:
        return _refusal(f"Bash: working directory {guest_cwd!r} is not usable: {exc.detail}", "ACCESS-8")
    access = session.current_access()  # read now, immediately before the command (ACCESS-5)
    cwd = root.joinpath(*comps)
    result = run_command(command, cwd=cwd, read_only=access.read_only, root=root,
                         timeout=min(session.host.call_timeout, 30.0))
    return as_tool_result(result)
