"""Every fake driver the kit's own tests certify, in one place.

Single-defect broken drivers prove each check can fail on its own clause: ``drivers.py`` (browser), ``gap_drivers.py``
and ``mutation_gap_drivers.py`` (defects found by the coverage map and mutation testing), ``sequence_drivers.py`` and
``computer_sequence_drivers.py`` (defects that show only over a sequence), ``computer_drivers.py`` and
``computer_result_drivers.py``,
``execution_services.py``, and ``node/`` (JavaScript and TypeScript drivers). ``harness_drivers.py`` misbehave
towards the harness rather than the contract (hang, crash, leave tasks behind); ``evidence_drivers.py`` exercise the
certificate's evidence. ``sdk_patches.py`` holds pieces of defects written into the installed SDK's runner.
``certification.py`` runs a child certification and reads its certificate.
"""
