"""Runnable examples: ``python -m reference.examples.<name> [--rehearse | --live]``.

``reader`` (read-only page reader), ``fieldwork`` (fill and save an owned reservation form), ``review``
(Decisions with a verifier), ``mixed`` (browser tools beside ordinary and Pydantic functions) and ``exec_py``
(a code-execution function tool backed by :mod:`reference.execution`).

Rehearsal (the default) replays a recorded model conversation from ``fixtures/streams/examples/`` through a real
OpenAI client and a fake transport, against real pages and a real browser, and needs no API key. ``--live`` uses
``OPENAI_API_KEY`` and ``OPENAI_MODEL``. Either way every example checks its outcome from an independent record
(the fixture server's effect store or the desktop's event log), never from what the model says.
"""
