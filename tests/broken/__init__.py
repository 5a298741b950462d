"""Deliberately broken browser drivers: the kit's proof that its contract checks catch real defects."""
