"""A module without register(ctx): the loader must refuse it."""

VALUE = 42
