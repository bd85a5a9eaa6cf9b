"""What the tests run on: plugins, mutant hosts, wire hosts and the corpus of real extensions."""
