"""The builder sources of every committed cassette, and the command that writes or checks them.

    python -m tools.cassettes            # check: exit 1 naming every committed file that drifted from its source
    python -m tools.cassettes --write    # regenerate fixtures/streams/*.jsonl and fixtures/streams/examples/*.jsonl

``runner_sources`` holds the runner suite's scenarios (``stream_sources`` adds the ``live-*`` ones, streamed the way
the API streams, to the same registry), ``example_sources`` the examples' rehearsals; each registers its builders
in a :class:`~tools.cassettes.registry.SourceRegistry` tied to the folder it writes.
"""
