"""Witnesses of the broken hosts in tests/subjects/mutants, one module per group of rule families:
each shows through the adapter contract alone that the reference host does what a rule's sentence says
and the broken host does not."""
