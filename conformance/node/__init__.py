"""Everything the kit does with Node, in one package.

- ``js/`` is the Node side, shipped as package data: ``host.mjs`` (the host process, JSON lines over stdio),
  ``computer.mjs`` (its computer-driver ops) and ``sdk*.mjs`` (the npm SDK's end of the object broker);
- :mod:`.bridge` starts the host and turns its failures into typed errors under a deadline;
- :mod:`.drivers` certifies JavaScript and TypeScript drivers (``--driver=node:...``, ``--computer-driver=node:...``);
- :mod:`.sdk` makes the npm ``openai`` a subject of the toolset and runner suites (``--sdk=node``).
"""
