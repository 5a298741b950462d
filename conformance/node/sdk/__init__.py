"""The npm ``openai`` as a subject of the toolset and runner suites (``driverkit certify --sdk=node``).

- :mod:`.broker` is the Python end of the object broker (``js/sdk.mjs`` its Node end);
- :mod:`.toolsets` and :mod:`.computer_toolset` put the npm ``BrowserToolset`` and ``ComputerToolset`` behind the
  interface the checks call (:mod:`.execute` maps per-call execute options);
- :mod:`.callbacks` passes Python callables the way Node calls them, :mod:`.ledger` a check's ledger;
- :mod:`.decisions` runs a Decisions scenario through the npm ``DecisionsToolRunner``;
- :mod:`.subject` is what ``--sdk=node`` changes in a run (which checks run in Node, and its known deviations).
"""
