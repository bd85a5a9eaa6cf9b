"""Guest paths and normalization.

The sandbox does **not** normalize guest paths; it refuses every spelling that is not canonical.
A canonical guest path is ``guest_root`` or ``guest_root + "/" + "/".join(components)`` where no
component is empty (no doubled or trailing slash), ``.`` or ``..``. So ``/workspace//a``,
``/workspace/./a``, ``/workspace/a/`` and ``/workspace/a/../a`` are all refused rather than
rewritten: each admitted file has exactly one spelling, and the plan-file comparison is plain
equality of the component tuples, code point by code point. There is no case folding and no
Unicode normalization: the NFC and NFD spellings of the plan path, or a Cyrillic ``а`` in place of
a Latin ``a``, are different paths and neither of the look-alikes is the plan file. Paths must
also be valid UTF-8 (no lone surrogates), hold no NUL, C0, DEL or C1 control character, no
component over 255 UTF-8 bytes and no more than 4096 UTF-8 bytes in total.
"""

from __future__ import annotations

from ..errors import SandboxError

GUEST_ROOT = "/workspace"
MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 4096

Components = tuple[str, ...]


def bad_char(path: str) -> str | None:
    """What is wrong with the characters of ``path`` (a NUL or a control character), or None."""
    for ch in path:
        code = ord(ch)
        if code == 0:
            return "contains a NUL character"
        if code < 0x20 or 0x7F <= code <= 0x9F:
            return f"contains the control character U+{code:04X}"
    return None


def root_components(guest_root: object) -> Components:
    """The components of a guest root such as ``/workspace``; anything else is a ``SandboxError``."""
    parts = guest_root.split("/") if isinstance(guest_root, str) else []
    if len(parts) < 2 or parts[0] != "" or any(p in ("", ".", "..") for p in parts[1:]) or bad_char(str(guest_root)):
        raise SandboxError(f"guest_root must be a canonical absolute path like '/workspace', got {guest_root!r}")
    return tuple(parts[1:])


def resolve_guest_path(path: object, guest_root: str, root_parts: Components) -> Components:
    """Validate a canonical guest path and return its components below ``guest_root``."""
    if not isinstance(path, str):
        raise SandboxError(f"a guest path must be a str, got {type(path).__name__}", subject=repr(path))
    if not path:
        raise SandboxError("the guest path is empty", subject=path)
    try:
        total = len(path.encode("utf-8"))
    except UnicodeEncodeError:
        raise SandboxError(f"{path!r} is not valid Unicode text (lone surrogate)", subject=repr(path)) from None
    problem = bad_char(path)
    if problem:
        raise SandboxError(f"{path!r} {problem}", subject=repr(path))
    if total > MAX_PATH_BYTES:
        raise SandboxError(
            f"guest path is {total} UTF-8 bytes, over the {MAX_PATH_BYTES}-byte limit", subject=path[:64]
        )
    if not path.startswith("/"):
        raise SandboxError(f"{path!r} is relative; give an absolute path under {guest_root}", subject=path)
    parts = path.split("/")[1:]
    if ".." in parts:
        raise SandboxError(f"{path!r} contains a '..' segment; traversal is not allowed", subject=path)
    if "." in parts or "" in parts:
        raise SandboxError(
            f"{path!r} is not canonical (doubled or trailing slash, or a '.' segment); "
            f"spell it as {guest_root}/dir/name",
            subject=path,
        )
    n = len(root_parts)
    if tuple(parts[:n]) != root_parts:
        raise SandboxError(f"{path!r} is outside the guest root {guest_root}", subject=path)
    comps = tuple(parts[n:])
    for comp in comps:
        size = len(comp.encode("utf-8"))
        if size > MAX_COMPONENT_BYTES:
            raise SandboxError(
                f"a component of {path[:64]!r}... is {size} UTF-8 bytes, over the {MAX_COMPONENT_BYTES}-byte limit",
                subject=path[:64],
            )
    return comps


def spell(guest_root: str, comps: Components) -> str:
    """The canonical guest spelling of ``comps``."""
    return "/".join((guest_root, *comps))
