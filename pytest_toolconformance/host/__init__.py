"""Talking to a host under test: the adapter contract and its capabilities, a host spec turned into an
adapter, the checking client the suites use, the reference host as an adapter, scripted plugins, the
sandbox attack table, and the wire protocol (wire/)."""
