"""Tests of the pytest plugin, ``pytest_toolconformance``, mirrored by module."""
