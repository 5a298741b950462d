"""Developer tooling for the kit's own repository: generators of committed fixtures. Not shipped in the wheel."""
