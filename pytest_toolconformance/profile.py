"""The one Hypothesis settings profile of the kit, used by every property of every suite.

Registered under :data:`PROFILE` and never loaded globally: a property takes it explicitly
(:func:`settings_for`), so the user's own Hypothesis tests keep their own profile. No example
database: a check must not write ``.hypothesis/`` into the folder of the user or the plugin under
test, and a verdict depends only on the seed (``--toolconformance-seed``), never on earlier runs.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import importlib.metadata
import json
import math
import os
import pickle
import shutil
import stat
import sys
import tempfile
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

import hypothesis
import hypothesis.configuration
import pytest
from hypothesis import HealthCheck, Phase, given
from hypothesis import strategies as st

from pytest_toolconformance import options
from pytest_toolconformance.findings import CaseOutOfTime

PROFILE = "toolconformance"
#: Health checks judge the speed and shape of generation; the kit's strategies are slow on purpose
#: (a real host or plugin answers every example) and the host's speed is not a health matter.
hypothesis.settings.register_profile(
    PROFILE,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
    print_blob=False,
    max_examples=options.DEFAULT_MAX_EXAMPLES,
)

T = TypeVar("T")
#: Non-empty while a kit run draws no local constants (without_local_constants): only then are
#: draws the same in every process, and only then are they kept across runs.
_LOCAL_CONSTANTS_OFF: list[bool] = []


def keep_storage_out_of_the_folder(config: pytest.Config) -> None:
    """Point Hypothesis' storage (its constants cache, written even with no example database) at a
    temporary folder for this run, so a plugin check leaves nothing in the plugin's repository. A
    storage directory the user chose (``HYPOTHESIS_STORAGE_DIRECTORY``) is left as it is."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    previous = getattr(hypothesis.configuration, "__hypothesis_home_directory", None)
    home = tempfile.mkdtemp(prefix="toolconformance-hypothesis-")
    _share_caches(Path(home))
    hypothesis.configuration.set_hypothesis_home_dir(home)

    def restore() -> None:
        hypothesis.configuration.set_hypothesis_home_dir(previous)
        shutil.rmtree(home, ignore_errors=True)

    config.add_cleanup(restore)


def without_local_constants(config: pytest.Config) -> None:
    """Draw no constants from local modules for the rest of this run.

    Hypothesis mixes literals of every local module in ``sys.modules`` into its draws, so the same
    seed generated other cases depending on what else the process had imported (a conftest, the
    user's own modules, earlier tests in an xdist worker): one pi extension's SCHEMA-4 verdict
    flipped with the order a CI worker ran tests in. The kit's cases come from the subject and the
    seed only; Hypothesis' own boundary constants stay.
    """
    from hypothesis.internal.conjecture import providers

    if not hasattr(providers, "_get_local_constants") or not hasattr(providers, "CONSTANTS_CACHE"):
        return  # a Hypothesis without local constants, or one that moved them: nothing to turn off
    original = providers._get_local_constants
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()
    _LOCAL_CONSTANTS_OFF.append(True)

    def restore() -> None:
        providers._get_local_constants = original
        providers.CONSTANTS_CACHE.cache.clear()
        _LOCAL_CONSTANTS_OFF.clear()

    config.add_cleanup(restore)


def _share_caches(home: Path) -> None:
    """Link ``home/unicode_data`` and ``home/constants`` to folders kept across runs, for this user only.

    Hypothesis caches there what it computes the same way on every run: its Unicode tables (the
    UTF-8 codec table that ``st.text()`` needs takes 1.5 to 3 s of CPU) and the literals of each
    local module's source (keyed by a hash of that source). A fresh storage per run would compute
    them again every run; a cached entry holds what the computation gives, so sharing changes no
    generated case and no verdict. The folder sits in the system temp folder beside ``home``
    (Hypothesis writes an entry beside it and renames it in, which needs one file system); one that
    another user owns or can write is not used, and the caches then live and die with the run.
    """
    shared = _user_cache()
    if shared is None:
        return
    try:
        for name in ("unicode_data", "constants"):
            (shared / name).mkdir(exist_ok=True)
            (home / name).symlink_to(shared / name, target_is_directory=True)
    except OSError:
        return


def _user_cache() -> Path | None:
    """The kit's cache folder of this user in the system temp folder (mode 0700), or None where
    there is no owner to check (Windows) or the folder is another user's or writable by others."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return None
    shared = Path(tempfile.gettempdir()) / f"toolconformance-hypothesis-cache-{getuid()}"
    try:
        shared.mkdir(mode=0o700, exist_ok=True)
        info = shared.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != getuid() or info.st_mode & 0o077:
        return None
    return shared


def settings_for(cap: int | None = None, **extra: Any) -> hypothesis.settings:
    """The kit's profile with this run's examples per property (at most ``cap``) and ``extra``."""
    examples = options.active().max_examples
    if cap is not None:
        examples = min(examples, cap)
    return hypothesis.settings(hypothesis.settings.get_profile(PROFILE), max_examples=max(1, examples), **extra)


def seeded(test: T) -> T:
    """``test`` (a ``@given`` function or a state machine) with this run's seed."""
    return hypothesis.seed(options.active().seed)(test)  # type: ignore[no-any-return]


def run_property(
    strategy: st.SearchStrategy[Any],
    body: Callable[[Any], None],
    *,
    cap: int | None = None,
    examples: Sequence[Any] = (),
    share_draws: bool = False,
    **extra: Any,
) -> None:
    """Run ``body`` on examples of ``strategy`` under the kit's profile and seed; a failure is shrunk.

    ``examples`` run first, whatever the example budget (Hypothesis' explicit examples).

    ``share_draws``: ``body`` is a plain function of the value (no ``assume``, ``note`` or ``target``),
    so the values Hypothesis generates for ``strategy`` (the same object) under this run's seed and
    settings are the same for every such property: they are generated once per run
    (:func:`_draws_of`) and handed to ``body`` in the order Hypothesis would hand them. Only when
    one fails does the property run under Hypothesis, which meets the same values in the same
    order, fails on the same one and shrinks it as any property's failure.
    """
    settings = settings_for(cap, **extra)
    what = _label(strategy)
    body = _leaving_out_cases_out_of_time(body)
    if share_draws:
        drawn, frozen, source = _draws_of(strategy, settings, extra)
        explicit = f" and {len(examples)} fixed one{'s' if len(examples) > 1 else ''} first" if examples else ""
        try:
            # A body may change its value; the next rule gets it unchanged: each body gets its own copy.
            for value in examples:
                body(copy.deepcopy(value))
            for value, pickled in zip(drawn, frozen, strict=True):
                body(copy.deepcopy(value) if pickled is None else pickle.loads(pickled))
        except _FAILURES as exc:  # Hypothesis below reports it, shrunk
            first = exc
        else:
            note_statistic(f"{len(drawn)} cases of {what} ({source}){explicit}")
            return
        note_statistic(f"{what}: a case failed, so the property ran again under Hypothesis to shrink it")
        _run_under_hypothesis(strategy, body, settings, examples)
        raise first  # Hypothesis did not meet it again (a plugin that answers the same call differently)
    ran = [0]

    def counted(value: Any) -> None:
        ran[0] += 1
        body(value)

    try:
        _run_under_hypothesis(strategy, counted, settings, examples)
    finally:
        note_statistic(f"{ran[0]} cases of {what} (generated under Hypothesis for this check alone)")


def _leaving_out_cases_out_of_time(body: Callable[[Any], None]) -> Callable[[Any], None]:
    # A case whose call never ended judges nothing: the property goes on with the next one (the check
    # ends errored for it, unless another case breaks the rule), and a shrink meets it as a pass.
    def run(value: Any) -> None:
        try:
            body(value)
        except CaseOutOfTime:
            pass

    return run


#: What Hypothesis counts as a failure of a property (and shrinks), rather than passing it on:
#: a skip or a Ctrl-C leaves the loop of shared cases as it leaves Hypothesis.
_FAILURES: tuple[type[BaseException], ...] = (Exception, SystemExit, GeneratorExit, pytest.fail.Exception)


#: The statistics lines of the check running now, and the test item they are shown for.
_STATISTICS: ContextVar[tuple[pytest.Item, list[str]] | None] = ContextVar("toolconformance_statistics", default=None)


@contextlib.contextmanager
def statistics_of(item: pytest.Item) -> Iterator[None]:
    """Collect what the check ``item`` ran on, for Hypothesis' ``--hypothesis-show-statistics``
    section (the kit's properties are not ``@given`` tests, so Hypothesis has none of its own)."""
    token = _STATISTICS.set((item, []))
    try:
        yield
    finally:
        _STATISTICS.reset(token)


def note_statistic(line: str) -> None:
    """One line about the running check (its cases, its calls) for the statistics section."""
    current = _STATISTICS.get()
    if current is None:
        return
    item, lines = current
    lines.append(line)
    # Hypothesis' pytest plugin shows an item's ``hypothesis_statistics`` text, in its own format.
    item.hypothesis_statistics = f"{item.nodeid}:\n\n" + "\n".join(f"  - {text}" for text in lines)  # type: ignore[attr-defined]


def _label(strategy: st.SearchStrategy[Any]) -> str:
    name = _NAMED.get(strategy)
    if name is None:
        return "the check's own strategy"
    builder, _, schema = name.partition(":")
    builder = builder.rsplit(".", 1)[-1]
    return f"{builder}(schema)" if schema else builder  # a schema's strategy, or a strategy of the kit's source


def _run_under_hypothesis(
    strategy: st.SearchStrategy[Any],
    body: Callable[[Any], None],
    settings: hypothesis.settings,
    examples: Sequence[Any],
) -> None:
    @settings
    @given(strategy)
    def check(value: Any) -> None:
        body(value)

    for value in reversed(examples):  # decorators apply inside out: the first example runs first
        check = hypothesis.example(value)(check)
    seeded(check)()


#: This run's generated values of each shared strategy, by (id of the strategy, seed, budget,
#: settings); the entry holds the strategy itself, so its id cannot be reused while the entry lives.
_DRAWN: dict[tuple[Any, ...], tuple[st.SearchStrategy[Any], list[Any], list[bytes | None]]] = {}
#: Strategies named by what builds them (name_strategy): their draws may be kept across runs.
_NAMED: weakref.WeakKeyDictionary[st.SearchStrategy[Any], str] = weakref.WeakKeyDictionary()
#: The folder that keeps named strategies' draws across runs, while a kit run has one.
_KEPT: list[Path] = []
_KEPT_ENTRIES = 512


def name_strategy(strategy: st.SearchStrategy[T], name: str) -> st.SearchStrategy[T]:
    """Declare that ``name`` says all that ``strategy`` is built from: its builder and that builder's
    whole input (``call_arguments_for`` and a schema's JSON text, say), or for a strategy built from
    the kit's source alone (a host suite's), the dotted name of where it is built. Its draws under a
    seed are then kept across runs in the user's cache, keyed by the name, the seed, the settings,
    the versions of Python, Hypothesis and jsonschema and the kit's source: what the same generation
    gives again, so a kept entry changes no case and no verdict. Never name a strategy built from
    what a run meets (a host's answers, a user's files) by where it is built."""
    _NAMED[strategy] = name
    return strategy


def _draws_of(
    strategy: st.SearchStrategy[Any], settings: hypothesis.settings, extra: dict[str, Any]
) -> tuple[list[Any], list[bytes | None], str]:
    """The values of ``strategy`` a passing property meets, each also pickled (or None where pickle
    cannot hold it), and where they came from."""
    key = (id(strategy), options.active().seed, settings.max_examples, repr(sorted(extra.items())))
    found = _DRAWN.get(key)
    if found is not None and found[0] is strategy:
        return found[1], found[2], "the cases an earlier check of this run had"
    kept = _kept_entry(strategy, settings, extra)
    drawn = _read_kept(kept) if kept is not None else None
    source = "kept from an earlier run"
    if drawn is None:
        drawn, source = [], "generated in this run"
        # The same run as every property, with a body that only keeps the value: no body here
        # fails, so Hypothesis generates exactly what it generates for a passing property.
        _run_under_hypothesis(strategy, lambda value: drawn.append(copy.deepcopy(value)), settings, ())
        if kept is not None:
            _keep(kept, drawn)
    frozen = [_pickled(value) for value in drawn]
    _DRAWN[key] = (strategy, drawn, frozen)
    return drawn, frozen, source


def _pickled(value: Any) -> bytes | None:
    # Each body gets a fresh copy of a shared value: unpickling one is three to five times quicker
    # than deepcopy over the host suites' catalogs, and gives the same value.
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a value pickle cannot hold (a lambda, say) is copied with deepcopy
        return None


def _kept_entry(
    strategy: st.SearchStrategy[Any], settings: hypothesis.settings, extra: dict[str, Any]
) -> tuple[Path, str] | None:
    name = _NAMED.get(strategy)
    active = options.active()
    if name is None or not _KEPT or not _LOCAL_CONSTANTS_OFF or active.seed_source == "random":
        return None  # (a random seed is never asked for again)
    key = json.dumps(
        [
            name,
            active.seed,
            repr(settings),
            repr(sorted(extra.items())),
            sys.version,
            hypothesis.__version__,
            _version_of("jsonschema"),
            _kit_source_digest(),
        ]
    )
    return _KEPT[0] / (hashlib.sha256(key.encode()).hexdigest() + ".json"), key


def _read_kept(entry: tuple[Path, str]) -> list[Any] | None:
    path, key = entry
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        data = _read_pickled(path.with_suffix(".pickle"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("draws"), list):
        return None
    return data["draws"]


def _read_pickled(path: Path) -> Any:
    # Draws that JSON would not give back as they were (a strategy's own objects, tuples, NaN). The
    # folder is this user's alone (mode 0700, checked by _user_cache), so what is unpickled here is
    # what this user's own runs wrote.
    try:
        return pickle.loads(path.read_bytes())
    except Exception:  # noqa: BLE001 - a damaged or foreign entry is generated again, whatever it raises
        return None


def _keep(entry: tuple[Path, str], drawn: list[Any]) -> None:
    path, key = entry
    as_json = _plain_json(drawn)
    if not as_json:
        path = path.with_suffix(".pickle")  # a tuple or a NaN would come back from JSON as something else
    written = None
    try:
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, suffix=".tmp", delete=False) as f:
            written = f.name
            document = {"key": key, "draws": drawn}
            if as_json:
                f.write(json.dumps(document, allow_nan=False).encode("utf-8"))
            else:
                pickle.dump(document, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(written, path)  # whole or not at all, for another run reading it now
        written = None
        entries = sorted((*path.parent.glob("*.json"), *path.parent.glob("*.pickle")), key=lambda p: p.stat().st_mtime)
        for old in entries[: max(0, len(entries) - _KEPT_ENTRIES)]:
            old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        # A full or read-only temp folder, or a value pickle cannot write (a class its module no longer
        # names, as after a test run re-imports the kit): the draws live for this run only.
        pass
    finally:
        if written is not None:
            with contextlib.suppress(OSError):
                os.unlink(written)


def _plain_json(value: Any) -> bool:
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    return False


@functools.cache
def _version_of(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def _kit_source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        digest.update(path.relative_to(Path(__file__).parent).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def keep_draws_to_the_run(config: pytest.Config) -> None:
    """Keep named strategies' draws in the user's cache for this run, and drop the run's own store
    of draws when it ends (a pytester run in the same process starts afresh)."""
    shared = _user_cache()
    if shared is not None:
        try:
            (shared / "draws").mkdir(exist_ok=True)
            _KEPT[:] = [shared / "draws"]
        except OSError:
            pass

    def forget() -> None:
        _DRAWN.clear()
        _KEPT.clear()

    config.add_cleanup(forget)
