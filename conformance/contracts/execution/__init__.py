"""Checks of a code-execution service against "Use your own UI tools" (the code-execution guide), over the HTTP
protocol it defines and nothing else. Run with ``pytest --execution-service=URL`` or
``driverkit certify --execution-service=URL`` (the bearer token in ``OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN``)."""
