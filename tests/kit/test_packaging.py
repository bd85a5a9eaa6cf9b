"""The distribution carries what the kit needs at run time.

A wheel built from this checkout holds every JS, JSON and Markdown file of the two packages (the
Node.js bridge and its stand-ins, the message schemas, the rule digest) and the scenarios, and its
metadata passes ``twine check``; installed into a fresh virtual environment it runs the main job
from an empty folder (the release workflow does the same, .github/workflows/release.yml).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.paths import REPO

DATA = (".mjs", ".json", ".md")

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("build") is None or importlib.util.find_spec("hatchling") is None,
    reason="needs the build and hatchling packages (pip install -e '.[test]')",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (found,) = out.glob("*.whl")
    return found


def test_the_wheel_carries_every_data_file_of_the_kit(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {
        p.relative_to(REPO).as_posix()
        for package in ("pytest_toolconformance", "reference_host")
        for p in (REPO / package).rglob("*")
        if p.suffix in DATA and "__pycache__" not in p.parts
    }
    wanted |= {
        "pytest_toolconformance/scenarios/" + p.relative_to(REPO / "scenarios").as_posix()
        for p in (REPO / "scenarios").rglob("*.json")
    }
    assert len(wanted) > 40 and not wanted - names, sorted(wanted - names)


def test_the_distribution_metadata_is_clean(wheel: Path) -> None:
    if importlib.util.find_spec("twine") is None:
        pytest.skip("needs twine (pip install -e '.[test]')")
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
