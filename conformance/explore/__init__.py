"""Model-based exploration of browser and computer drivers: random sequences, judged after every step.

The single-situation checks each judge one member in one situation. Some defects show only over a sequence: an ID
given out again after its tab closed, an active flag that moves when a background tab closes, a history that
forgets. Exploration drives a fresh driver with random sequences of members over the fixture pages and, after
every step, compares the driver's state and reads with a model of the session and with the documents' invariants.
A failing sequence is shrunk to the shortest one that still fails, and the certificate shows it as numbered steps
with the evidence of its last step, the clause it breaks and the seed that replays it.

- :mod:`.model`: the session model and the invariants every state report must keep;
- :mod:`.steps`: the step vocabulary, each step's member call and what the documents let the kit expect of it;
- :mod:`.session`: one explored driver session (a subject from the harness and its model);
- :mod:`.machine`: the hypothesis state machine that draws steps, one fresh session per sequence;
- :mod:`.runner`: the budget, the seed and shrinking bounded in time;
- :mod:`.render`: a shrunk sequence as numbered steps;
- :mod:`.options`: ``--explore`` and ``--explore-seed``.

Computer drivers are explored on the same engine (:class:`.machine.SequenceMachine`, :func:`.runner.explore`) with a
desktop model of their own: random sequences of native actions, judged after each by the recorder page's record.

- :mod:`.computer_model`: the desktop model (pointer, what is held, text typed) and the rest every action must leave;
- :mod:`.computer_steps`: the action vocabulary, each action's own judgement, and the replay shortening uses;
- :mod:`.computer_session`: one explored desktop session (a computer subject, its model, the page's record);
- :mod:`.computer_machine`: the state machine that draws actions.

The checks that run it are ``conformance/contracts/browser/check_exploration.py`` and
``conformance/contracts/computer/check_exploration.py``.
"""
