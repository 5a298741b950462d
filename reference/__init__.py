"""Reference drivers and toolsets for the OpenAI SDK browser and computer helpers, safe by default."""
