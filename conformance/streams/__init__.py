"""Generated Responses streams: fuzzing the SDK's tool runners and shrinking what they get wrong.

One concept per module:

- :mod:`~conformance.streams.events`: how one response is streamed, item by item, in the order the API sends it;
- :mod:`~conformance.streams.strategies`: hypothesis strategies for whole runs (several responses, every item
  kind, the faults), each rendered as a valid cassette that ``driverkit replay`` can rebuild;
- :mod:`~conformance.streams.facts`: what a cassette serves, read back from the cassette alone (so a shrunk or a
  recorded cassette is judged exactly as a generated one);
- :mod:`~conformance.streams.observation`: what one run of the runner showed, as plain data;
- :mod:`~conformance.streams.properties`: the documents' promises as checks over a run, and across modes;
- :mod:`~conformance.streams.known`: which property failures a recorded known deviation already explains;
- :mod:`~conformance.streams.reproduce`: whether ``driverkit replay`` shows a finding, judged by the same rules;
- :mod:`~conformance.streams.shrink`: delta debugging over a cassette's exchanges, items, events and faults;
- :mod:`~conformance.streams.shrink_command`: ``driverkit shrink``, the same reduction driven by ``driverkit replay``.

The runs themselves go through the runner suite's own harness (``conformance/contracts/runner/_generated.py``),
and the search that ties these together sits beside the check that runs it (``_fuzz.py``): this package judges
plain data and never imports a check.
"""
