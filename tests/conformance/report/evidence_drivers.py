"""Broken drivers whose certificates exercise the evidence: one with its screenshot taken away.

``click_at_offset_without_screenshot`` has ``ClickAtOffset``'s one defect (click_at lands 9 px right, 6 px below)
and offers no ``screenshot`` member, so its certificate's evidence must say no picture could be taken, and why.
"""

from __future__ import annotations

from tests.broken.drivers import ClickAtOffset, factory_for


class ClickAtOffsetWithoutScreenshot(ClickAtOffset):
    """ClickAtOffset without a screenshot member."""

    HIDDEN = ("screenshot",)


click_at_offset_without_screenshot = factory_for(ClickAtOffsetWithoutScreenshot)
