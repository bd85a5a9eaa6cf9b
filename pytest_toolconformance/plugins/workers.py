"""Plugin checks under pytest-xdist: each plugin loaded once per run, its checks on one worker.

The checks are parametrized by the tools a plugin registers, so collection must know them, and
every xdist worker collects every check. Loading each plugin on each worker (a Node process and
``register`` each) made ``-n 2`` slower than one process. Instead:

- the controller makes one folder for the run (:func:`configure_node` hands it to each worker);
- collection on a worker reads each plugin's *listing* (its name, load error, and tools with
  what the parametrization reads) from that folder; the first worker to take a plugin's lock
  loads it for real, keeps it, and writes the listing; the others wait on the lock and read it.
  Every worker then collects from the same listing, so the collections agree;
- a scheduler (:func:`make_scheduler`, chosen for the plain ``-n N``, xdist's ``--dist load``) sends all
  checks of one plugin to one worker, in collection order: first to the worker that loaded it,
  another one (which loads it too) only when that worker has its own plugins done. Tests that are
  not plugin checks are distributed one by one, as ``load`` does.

A plugin whose registration differs between two loads fails the check that meets it
(:func:`mismatch`); it is never checked against the other load's tools.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

try:
    import fcntl
except ImportError:  # Windows: no shared listing, each worker loads each plugin as before
    fcntl = None  # type: ignore[assignment]

SHARED_KEY = "toolconformance_plugin_listing"
_FOLDER_KEY = pytest.StashKey[str]()
GROUP_PREFIX = "toolconformance-plugin-"


# -- the listing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListedRefusal:
    rule: str


@dataclass(frozen=True)
class ListedTool:
    """What the parametrization reads of a tool, as the worker that loaded the plugin saw it."""

    plugin: ListedPlugin
    name: str
    accepted: bool
    refusal: ListedRefusal | None
    schema: dict[str, Any]
    declared_schema: dict[str, Any]
    external: bool

    def __repr__(self) -> str:
        return f"<tool {self.plugin.name}/{self.name}>"


@dataclass
class ListedPlugin:
    """What the parametrization reads of a plugin (``PluginUnderTest``'s attributes of the same names)."""

    index: int
    spec: str
    name: str
    error: str | None
    error_rule: str
    tools: list[ListedTool]
    out_of_time: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def listing_of(plugin: Any) -> dict[str, Any]:
    """The JSON listing of a loaded ``PluginUnderTest``."""
    return {
        "spec": plugin.spec, "name": plugin.name, "error": plugin.error if not plugin.ok else None,
        "error_rule": plugin.error_rule, "out_of_time": plugin.out_of_time,
        "tools": [{"name": t.name, "accepted": t.accepted, "refusal": t.refusal.rule if t.refusal else None,
                   "schema": t.schema, "declared_schema": t.declared_schema, "external": t.external}
                  for t in plugin.tools],
    }


def from_listing(index: int, data: dict[str, Any]) -> ListedPlugin:
    plugin = ListedPlugin(index, data["spec"], data["name"], data["error"], data["error_rule"], [],
                          data.get("out_of_time"))
    plugin.tools = [ListedTool(plugin, t["name"], t["accepted"], ListedRefusal(t["refusal"]) if t["refusal"] else None,
                               t["schema"], t["declared_schema"], t["external"]) for t in data["tools"]]
    return plugin


def signature_of(plugin: Any) -> list[tuple[str, bool]]:
    """The tools a plugin (loaded, or as listed) registered, in order, each with whether it was accepted."""
    return [(t.name, t.accepted) for t in plugin.tools]


def mismatch(listed: ListedPlugin, plugin: Any) -> str | None:
    """Why ``plugin`` (loaded on this worker) cannot be checked by the tests collected from ``listed``."""
    if listed.ok != plugin.ok or signature_of(listed) != signature_of(plugin):
        def tools(sig: Sequence[tuple[str, bool]]) -> str:
            return ", ".join(f"{n}{'' if ok else ' (refused)'}" for n, ok in sig) or "none"
        return (
            f"plugin {plugin.name} ({plugin.spec}) registered other tools when loaded again in this pytest-xdist "
            f"worker ({tools(signature_of(plugin)) if plugin.ok else plugin.error}) than when its checks were "
            "collected "
            f"({tools(signature_of(listed)) if listed.ok else listed.error}), so these checks do not fit it. "
            "Make its register give the same tools on every load, or run without -n"
        )
    return None


def shared_folder(config: pytest.Config) -> Path | None:
    """The run's listing folder on an xdist worker of a run that checks plugins; None elsewhere."""
    workerinput = getattr(config, "workerinput", None)
    folder = workerinput.get(SHARED_KEY) if isinstance(workerinput, dict) else None
    return Path(folder) if folder and fcntl is not None else None


@contextlib.contextmanager
def _locked(path: Path, blocking: bool) -> Iterator[IO[str] | None]:
    with open(path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield None
            return
        try:
            yield lock
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None


def _write(path: Path, data: dict[str, Any]) -> bool:
    try:
        text = json.dumps(data)
    except (TypeError, ValueError):  # a Python plugin's schema with values JSON cannot hold
        return False
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return True


def shared_listing(folder: Path, count: int, load: Callable[[int], Any], worker: str = "") -> list[Any]:
    """Each plugin's listing, loading (``load(index)``) the ones no other worker has listed yet.

    A first pass takes only the locks that are free, so two workers split the loads; a second
    waits on the rest. A plugin whose listing cannot be written as JSON is loaded by each worker
    and its ``PluginUnderTest`` itself is the listing, as without sharing.
    """
    listed: list[Any] = [None] * count
    pending = list(range(count))
    for blocking in (False, True):
        left = []
        for index in pending:
            with _locked(folder / f"plugin-{index}.lock", blocking) as lock:
                if lock is None:
                    left.append(index)
                    continue
                target = folder / f"plugin-{index}.json"
                data = _read(target)
                if data is None:
                    plugin = load(index)
                    fresh = {**listing_of(plugin), "loaded_by": worker}
                    # The loading worker collects from the JSON too, so all workers read the same values.
                    data = json.loads(json.dumps(fresh)) if _write(target, fresh) else None
                    if data is None:
                        listed[index] = plugin
                        continue
                listed[index] = from_listing(index, data)
        pending = left
    return listed


# -- the controller -------------------------------------------------------------------------------


def configure_node(node: Any) -> None:
    """``pytest_configure_node``: give the worker the run's listing folder (made on first use)."""
    config = node.config
    folder = config.stash.get(_FOLDER_KEY, None)
    if folder is None:
        folder = config.stash[_FOLDER_KEY] = tempfile.mkdtemp(prefix="toolconformance-listing-")
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    node.workerinput[SHARED_KEY] = folder


def write_groups(config: pytest.Config, items: Sequence[pytest.Item], argname: str, target_type: type) -> None:
    """On a worker: which plugin each collected check belongs to, for the controller's scheduler."""
    folder = shared_folder(config)
    if folder is None:
        return
    groups = {}
    for item in items:
        callspec = getattr(item, "callspec", None)
        target = callspec.params.get(argname) if callspec is not None else None
        if isinstance(target, target_type):
            groups[item.nodeid] = f"{GROUP_PREFIX}{target.plugin}"
    worker = config.workerinput.get("workerid", "worker")  # type: ignore[attr-defined]
    _write(folder / f"groups-{worker}.json", groups)


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``pytest_xdist_make_scheduler``: group by plugin under the plain ``-n N`` (``--dist load``)."""
    folder = config.stash.get(_FOLDER_KEY, None)
    if folder is None or fcntl is None or config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class PluginGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        """xdist's scope scheduling with one scope per plugin under test; every other test its own."""

        groups: dict[str, str] | None = None
        owners: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                # Read once the collections are in: every worker wrote its groups before reporting them.
                self.groups = {}
                for path in sorted(Path(folder).glob("groups-*.json")):
                    self.groups.update(_read(path) or {})
            return self.groups.get(nodeid, nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            # A worker first gets the plugins it loaded while listing them; another's only when its own are done.
            if self.owners is None:
                self.owners = {}
                for path in Path(folder).glob("plugin-*.json"):
                    data = _read(path) or {}
                    self.owners[f"{GROUP_PREFIX}{path.stem.removeprefix('plugin-')}"] = str(data.get("loaded_by", ""))
            mine = next((scope for scope in self.workqueue if self.owners.get(scope) == node.gateway.id), None)
            if mine is not None:
                self.workqueue.move_to_end(mine, last=False)
            super()._assign_work_unit(node)

    return PluginGroupScheduling(config, log)
