"""Certifying a driver: one design for browser and computer drivers.

- :mod:`.factory` loads a ``module:factory`` option value and opens the driver it makes (every factory form);
- :mod:`.loop` is the one place driver code runs, each call under a deadline; :mod:`.errors` names what went wrong;
- :mod:`.profile` reads a driver's flavour and which members take ``cancelled``;
- :mod:`.subject` and :mod:`.computer_subject` are the driver as a check sees it: every call goes through the SDK's
  toolset and is recorded, so a check gets both the driver's raw result and the SDK's payload;
- :mod:`.environment` (browser: fixture pages, effects) and :mod:`.computer_environment` (desktop: input events)
  are what a factory and a check get; :mod:`.fixture_server`, :mod:`.generated_pages` and :mod:`.desktops` serve them;
- :mod:`.browser` and :mod:`.computer` hold a run's session-wide pieces; :mod:`.fixtures` are the pytest fixtures.
"""
