"""A driver author's own package: browser and computer drivers built on the kit's reference drivers."""
