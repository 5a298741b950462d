"""Mutation testing of the kit: certify single-defect variants of the reference drivers, report the kill rate.

Issue 29 asks whether the contract checks catch the mistakes driver authors make. The hand-written broken drivers
(tests/broken) answer that for defects someone thought of; this tool derives defects mechanically and counts how
many the certification kills. One concept per module:

- :mod:`~tools.mutate.model`: operators, the mistake families they imitate, variants and their stable IDs;
- :mod:`~tools.mutate.shapes`: member argument and result shapes, read from the SDK's type annotations;
- :mod:`~tools.mutate.wrapper_ops`: behavioural variants, wrappers around the running reference browser driver;
- :mod:`~tools.mutate.source_ops`: source variants, one AST-located edit of a copy of the ``reference`` package;
- :mod:`~tools.mutate.variants`: deterministic generation of all variants and the seeded per-operator sample;
- :mod:`~tools.mutate.wrapped` and :mod:`~tools.mutate.tracing`: what the child certifications load (the
  mutated driver's factory, the control's line tracer);
- :mod:`~tools.mutate.runner`: the control and the child certifications, judged killed or survived;
- :mod:`~tools.mutate.equivalent`: the committed list of survivors argued equivalent (equivalent.toml);
- :mod:`~tools.mutate.report`: report.json and report.md; ``python -m tools.mutate`` runs it all.
"""
