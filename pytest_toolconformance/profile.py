"""The one Hypothesis settings profile of the kit, used by every property of every suite.

Registered under :data:`PROFILE` and never loaded globally: a property takes it explicitly
(:func:`settings_for`), so the user's own Hypothesis tests keep their own profile. No example
database: a check must not write ``.hypothesis/`` into the folder of the user or the plugin under
test, and a verdict depends only on the seed (``--toolconformance-seed``), never on earlier runs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import hypothesis
import hypothesis.configuration
import pytest
from hypothesis import HealthCheck, Phase, given
from hypothesis import strategies as st

from pytest_toolconformance import options

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


#: Hypothesis' storage folders that hold only tables derived from the Python build (the Unicode
#: character map, the characters UTF-8 can encode) and the scratch folder they are written through.
_DERIVED_TABLES = ("unicode_data", "constants", "tmp")


def _user_cache() -> Path | None:
    """The kit's folder in the user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``), if it can be made
    and lies outside the folder the run runs in."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base).resolve() / "pytest-toolconformance" / "hypothesis"
    if folder.is_relative_to(Path.cwd().resolve()):  # a home inside the run's folder: write nothing there
        return None
    try:
        for name in _DERIVED_TABLES:
            (folder / name).mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def keep_storage_out_of_the_folder(config: pytest.Config) -> None:
    """Point Hypothesis' storage (its constants cache, written even with no example database) at a
    temporary folder for this run, so a check leaves nothing in the folder it runs in. A storage
    directory the user chose (``HYPOTHESIS_STORAGE_DIRECTORY``) is left as it is.

    Only the Unicode tables are kept between runs, in the user's cache: Hypothesis derives them
    from the Python build (no run's examples go into them) and rebuilding them costs about a
    second of CPU on the first ``st.text()`` of every run.
    """
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    previous = getattr(hypothesis.configuration, "__hypothesis_home_directory", None)
    home = tempfile.mkdtemp(prefix="toolconformance-hypothesis-")
    cache = _user_cache()
    if cache is not None:
        for name in _DERIVED_TABLES:
            # The scratch folder too: Hypothesis writes a table there and renames it into place,
            # which needs both on one file system.
            os.symlink(cache / name, os.path.join(home, name), target_is_directory=True)
    hypothesis.configuration.set_hypothesis_home_dir(home)

    def restore() -> None:
        hypothesis.configuration.set_hypothesis_home_dir(previous)
        shutil.rmtree(home, ignore_errors=True)

    config.add_cleanup(restore)


def settings_for(cap: int | None = None, **extra: Any) -> hypothesis.settings:
    """The kit's profile with this run's examples per property (at most ``cap``) and ``extra``."""
    examples = options.active().max_examples
    if cap is not None:
        examples = min(examples, cap)
    return hypothesis.settings(hypothesis.settings.get_profile(PROFILE), max_examples=max(1, examples), **extra)


def seeded(test: T) -> T:
    """``test`` (a ``@given`` function or a state machine) with this run's seed."""
    return hypothesis.seed(options.active().seed)(test)  # type: ignore[no-any-return]


def run_property(strategy: st.SearchStrategy[Any], body: Callable[[Any], None], *, cap: int | None = None,
                 **extra: Any) -> None:
    """Run ``body`` on examples of ``strategy`` under the kit's profile and seed; a failure is shrunk."""

    @settings_for(cap, **extra)
    @given(strategy)
    def check(value: Any) -> None:
        body(value)

    seeded(check)()
