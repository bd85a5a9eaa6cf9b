"""The repository a plugin sits in: what its sandbox shows it, read-only, besides its own package.

A plugin loads what its repository holds: an extension in a monorepo imports shared code from beside
its package (``../../lib/...``), as pi loads it. So the plugin's process sees its whole repository
(read-only, like everything outside its workspace), with the places credentials are kept in a
checkout covered (:data:`REPOSITORY_SECRETS`). The repository is the nearest folder above the entry
with ``.git``; where there is none, the root of the npm or pnpm workspace its package belongs to (a
``package.json`` with ``workspaces``, or a ``pnpm-workspace.yaml``). A folder that is, or holds, a
home or a temporary folder is never taken for one: a home kept under git would otherwise show every
file in it. docs/access-model.md ("reads") says it for users.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pytest_toolconformance import confinement

#: Files in a checkout that hold credentials (each covered where it exists, in the repository's root
#: and in every folder from there down to the plugin): dotenv files, a project's registry tokens, and
#: git's config, where a remote's URL may carry a token.
REPOSITORY_SECRETS = (".env", ".npmrc", ".pypirc", ".netrc", ".git-credentials", ".git/config")


def repository_of(entry: Path) -> Path | None:
    """The repository the plugin sits in (see the module's text), or None."""
    folder = next((f for f in entry.parents if (f / ".git").exists()), None)
    if folder is None:
        folder = next((f for f in entry.parents if _workspace_root(f)), None)
    # Never a folder the sandbox covers whole (a home, /tmp), nor one that holds one.
    if folder is None or any(Path(place).is_relative_to(folder) for place in confinement.masked_places()):
        return None
    return folder


def repository_secrets(entry: Path) -> list[str]:
    """The credential files of the plugin's repository that exist (:data:`REPOSITORY_SECRETS` and
    ``.env.*``, in every folder from its root down to the entry's), to cover in its sandbox."""
    repository = repository_of(entry)
    if repository is None:
        return []
    found: list[str] = []
    for folder in (entry.parent, *(p for p in entry.parent.parents if p.is_relative_to(repository))):
        found += [str(folder / name) for name in REPOSITORY_SECRETS if os.path.lexists(folder / name)]
        try:
            found += [item.path for item in os.scandir(folder) if item.name.startswith(".env.")]
        except OSError:
            continue
    return found


def _workspace_root(folder: Path) -> bool:
    if (folder / "pnpm-workspace.yaml").is_file():
        return True
    try:
        data = json.loads((folder / "package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("workspaces"))
