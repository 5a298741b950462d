"""A browser context for one Fieldwork driver: isolated, fixed viewport, no downloads, no service workers.

Service workers are blocked because requests they make would bypass the driver's context routing (its network
policy); downloads are refused because the form never offers any. That is the reference browser driver's isolated
context too, so Fieldwork uses its options rather than a copy that could drift from them.
"""

from __future__ import annotations

from reference.browser._launch import context_options

__all__ = ["context_options"]
