"""responses-driver-kit: conformance checks for drivers of the OpenAI SDK browser and computer helpers."""
