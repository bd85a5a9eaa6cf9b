"""The public fixtures in a plugin author's own tests, without ``--toolconformance``."""

from __future__ import annotations

import pytest


def test_each_test_gets_its_own_empty_folder_inside_the_runs_temporary_folder(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_user="""
        import pytest

        seen = []

        @pytest.mark.parametrize("i", range(3))
        def test_folder(toolconformance_folder, tmp_path_factory, i):
            assert toolconformance_folder.is_dir() and not any(toolconformance_folder.iterdir())
            assert toolconformance_folder.name.startswith(f"test_folder_{i}_")
            assert tmp_path_factory.getbasetemp() in toolconformance_folder.parents
            assert toolconformance_folder not in seen
            seen.append(toolconformance_folder)
            (toolconformance_folder / "mine.txt").write_text("left behind", "utf-8")
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)
