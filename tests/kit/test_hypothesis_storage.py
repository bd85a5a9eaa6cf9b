"""Hypothesis' storage in a plugin run (pytest_toolconformance/profile.py): a fresh folder per run,
outside the plugin's folder, but its Unicode tables and constants caches kept across runs in one
folder of this user's, and never in a folder that another user could write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.paths import PLUGINS

PLUGIN = PLUGINS / "python" / "conforming.py"

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="the shared caches are POSIX only")


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp: Path) -> pytest.RunResult:
    monkeypatch.setenv("TMPDIR", str(tmp))  # where tempfile, and so the kit, puts its temporary folders
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    return pytester.runpytest_subprocess(f"--toolconformance-plugin={PLUGIN}", "--toolconformance-max-examples=2",
                                         "-p", "no:cacheprovider")


def test_caches_are_kept_for_the_next_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp = pytester.mkdir("tmp")
    result = _run(pytester, monkeypatch, tmp)
    assert result.ret == 0, result.stdout.str()
    shared = tmp / f"toolconformance-hypothesis-cache-{os.getuid()}"
    assert oct(shared.stat().st_mode & 0o777) == oct(0o700)
    # codec-utf-8 since Hypothesis 6.15x, codec-v2-utf-8 before.
    assert list((shared / "unicode_data").glob("*/codec-*utf-8.json.gz")), "the UTF-8 table was not kept"
    assert (shared / "constants").is_dir()  # filled only when Hypothesis draws local constants
    # The run's own storage is gone; nothing else of the kit's is left in the temp folder.
    assert sorted(p.name for p in tmp.iterdir()) == [shared.name]
    assert not (pytester.path / ".hypothesis").exists()


def test_a_folder_others_can_write_is_not_used(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp = pytester.mkdir("tmp")
    shared = tmp / f"toolconformance-hypothesis-cache-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)  # as a folder planted by someone else would be
    result = _run(pytester, monkeypatch, tmp)
    assert result.ret == 0, result.stdout.str()
    assert list(shared.iterdir()) == [], "the kit wrote its caches into a folder others can write"
