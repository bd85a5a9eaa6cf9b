"""Tests of ``pytest_toolconformance.plugins``: loading plugins, the Node bridge, workers and confinement."""
