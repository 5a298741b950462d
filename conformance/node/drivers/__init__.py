"""Certifying JavaScript and TypeScript drivers: ``--driver=node:./path/driver.mjs#makeDriver`` (and computer ones).

- :mod:`.driver` parses the ``node:`` form and opens a driver in the host as a Python view of it;
- :mod:`.subject` is the browser subject whose SDK half goes through the Node SDK's ``BrowserToolset``;
- :mod:`.harness` is the browser harness that makes those subjects, one host per pytest process;
- :mod:`.computer_driver`, :mod:`.computer_subject` and :mod:`.computer_harness` do the same for computer drivers
  (``--computer-driver=node:...``), through the Node SDK's ``ComputerToolset``.
"""
