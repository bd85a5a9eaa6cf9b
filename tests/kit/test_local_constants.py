"""A kit run draws no literals from local modules: the same seed gives the same cases whatever else
the process imported (a conftest, the user's modules, earlier tests in an xdist worker)."""

from __future__ import annotations

import sys
import types

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from pytest_toolconformance import profile

MARKER = "tcLocalLiteral"  # short: Hypothesis keeps only literals of up to 20 characters


def _drawn_texts() -> set[str]:
    seen: set[str] = set()

    @seed(0)
    @settings(max_examples=400, database=None, derandomize=False)
    @given(st.text())
    def draw(value: str) -> None:
        seen.add(value)

    draw()
    return seen


def _import_local_module_with_the_marker(tmp_path: object) -> None:
    """A module that lives outside site-packages, as a user's conftest does, holding the literal."""
    path = f"{tmp_path}/local_literals.py"
    with open(path, "w") as f:
        f.write("".join(f"VALUE_{i} = {MARKER + str(i)!r}\n" for i in range(3)) + f"MAIN = {MARKER!r}\n")
    module = types.ModuleType("toolconformance_local_literals")
    module.__file__ = path
    exec(compile(open(path).read(), path, "exec"), module.__dict__)
    sys.modules[module.__name__] = module


class _Cleanups:
    """The one part of pytest.Config that without_local_constants uses."""

    def __init__(self) -> None:
        self.calls: list[object] = []

    def add_cleanup(self, func: object) -> None:
        self.calls.append(func)


def test_a_kit_runs_draws_do_not_change_with_the_local_modules_imported(tmp_path: object) -> None:
    config = _Cleanups()
    profile.without_local_constants(config)  # type: ignore[arg-type]
    try:
        before = _drawn_texts()
        _import_local_module_with_the_marker(tmp_path)
        after = _drawn_texts()
    finally:
        for cleanup in config.calls:
            cleanup()  # type: ignore[operator]
        sys.modules.pop("toolconformance_local_literals", None)
    # Without the kit's switch, the new module's literals join the pool and the same seed draws
    # other cases (some of them the literal itself): the comparison fails then.
    assert not any(MARKER in text for text in after), "a kit run drew a literal of a local module"
    assert after == before, "the same seed drew other cases after a local module was imported"
