"""Tests of the adapters for real hosts in ``hosts/``."""
