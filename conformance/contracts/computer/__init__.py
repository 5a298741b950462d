"""Computer driver contract checks (CO- clauses), run against a live desktop by conformance.harness.computer."""
