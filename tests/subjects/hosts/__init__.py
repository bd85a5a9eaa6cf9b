"""Conforming hosts that make another choice the seed leaves open than the reference host does: the
suites must leave them green (a finding on one is a reading that goes beyond the seed)."""
