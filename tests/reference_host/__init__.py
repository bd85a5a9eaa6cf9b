"""Tests of ``reference_host``, the executable model of the seam."""
