"""Browser drivers with one deliberate defect each, for the clauses that close the browser-driver coverage gaps.

They follow :mod:`tests.broken.drivers` exactly (each wraps the reference sync driver in a
:class:`~tests.broken.drivers.BrokenDriver` whose one hook is the defect); they live in their own module so the
clauses added for the coverage map's gaps are proven in one place. ``test_gap_drivers.py`` (in
tests/conformance/contracts/browser) says which clause the suite must blame for each::

    pytest --driver=tests.broken.gap_drivers:hold_keys_skips_unknown_keys --certificate=out -k hold_keys
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from openai.lib.browser import BrowserError

from conformance.harness.environment import Environment
from reference.browser._keys import key_name
from tests.broken.drivers import Arguments, BrokenDriver, Forward, factory_for, with_start_url
from tests.broken.environment_view import EnvironmentView


def _supported(name: str) -> bool:
    try:
        key_name(name)
    except BrowserError:
        return False
    return True


class SetCheckedNoOpSkipsTheRef(BrokenDriver):
    """set_checked(False) whose ref fails is answered "Already unchecked.": a no-op that never checked its target."""

    def broken_set_checked(self, arguments: Arguments, forward: Forward) -> Any:
        try:
            return forward(arguments)
        except BrowserError:
            if arguments["checked"] is False:
                return "Already unchecked."
            raise


class HoldKeysSkipsUnknownKeys(BrokenDriver):
    """hold_keys drops the key names it does not know and holds the rest, reporting success."""

    def broken_hold_keys(self, arguments: Arguments, forward: Forward) -> Any:
        known = [name for name in arguments["keys"] if _supported(name)]
        return forward({**arguments, "keys": known or arguments["keys"]})


class ScopeRefsFollowTheirLabel(BrokenDriver):
    """A scope ref the reference no longer honours is retried with today's scope of the same label.

    So a ref survives its section being re-rendered (a new node with the old label); a hidden section is no
    longer offered at all, so that ref is still refused.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.labels: dict[str, str] = {}  # scope ref -> its label when it was discovered

    def broken_read_page_scoped(self, arguments: Arguments, forward: Forward) -> Any:
        root = arguments.get("root")
        try:
            report = forward(arguments)
        except BrowserError:
            if root not in self.labels:
                raise
            today = forward({**arguments, "root": None})
            again = [s["ref"] for s in today.get("scopes", []) if s.get("label") == self.labels[str(root)]]
            if not again:
                raise
            return forward({**arguments, "root": again[0]})
        if root is None and isinstance(report, dict):
            for scope in report.get("scopes", []):
                self.labels[str(scope["ref"])] = str(scope["label"])
        return report


class ScopedReadClicksAButton(BrokenDriver):
    """read_page_scoped returns the reference's read after clicking the first button in it."""

    def broken_read_page_scoped(self, arguments: Arguments, forward: Forward) -> Any:
        report = forward(arguments)
        self.click_first_button(report, arguments["tab_id"])
        return report


class ScriptsRunInBlankTabs(BrokenDriver):
    """run_script runs the source in a blank tab too, where no permitted page allows scripts."""

    def broken_run_script(self, arguments: Arguments, forward: Forward) -> Any:
        session = self.inner._session
        tab = session.tab(arguments["tab_id"])
        if str(tab.page.url) == "about:blank":
            return str(tab.page.evaluate(arguments["source"]))
        return forward(arguments)


class DefinesListTabs(BrokenDriver):
    """The driver defines a list_tabs method of its own (answering with its state) beside state()."""

    def list_tabs(self, arguments: Arguments | None = None) -> Any:
        return self.reference_state()


class ProfileCarriesUserCookies(BrokenDriver):
    """The browser profile already holds a cookie and stored data from earlier browsing when the session starts.

    The reference opens on the site's blank page, where the "earlier browsing" leaves them, and only then shows
    the session's start page.
    """

    @classmethod
    def inner_environment(cls, env: Environment) -> Any:
        return with_start_url(env, env.url("blank.html"))

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.script("document.cookie = 'user_session=1; path=/'; localStorage.setItem('user_prefs', '1'); 'ok'")
        self.reference("navigate", {"url": env.start_url, "tab_id": None})


class CoordinatesFollowTheNewPage(BrokenDriver):
    """With bound consent, click_at first re-reads the state, so it acts on whatever document is there now.

    That is the reference before it bound coordinate input: the approval's document is forgotten.
    """

    def broken_click_at(self, arguments: Arguments, forward: Forward) -> Any:
        self.reference_state()
        return forward(arguments)


class StateIgnoresCancellation(BrokenDriver):
    """state() declares cancelled (the wrapper keeps the reference's signature) but never looks at it."""

    def broken_state(self, forward: Forward) -> Any:
        return self.reference_state()


def _rewrite_changes(state: Any, rewrite: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """``state`` with each change of its observation passed through ``rewrite`` (counts and order kept)."""
    state = copy.deepcopy(state)
    observation = state.get("observation") if isinstance(state, dict) else None
    if isinstance(observation, dict):
        observation["changes"] = [rewrite(change) for change in observation["changes"]]
    return state


class SwitchReportedAsNavigation(BrokenDriver):
    """Switching tabs is reported as a navigation of the tab switched to, not as tab_switched."""

    def broken_state(self, forward: Forward) -> Any:
        def rewrite(change: dict[str, Any]) -> dict[str, Any]:
            return {**change, "type": "navigation"} if change["type"] == "tab_switched" else change

        return _rewrite_changes(forward(), rewrite)


class PolicyRefusalReportedAsUnsupported(BrokenDriver):
    """A navigation refused by the URL policy is reported with reason unsupported."""

    def broken_state(self, forward: Forward) -> Any:
        def rewrite(change: dict[str, Any]) -> dict[str, Any]:
            refused = change["type"] == "navigation_refused"
            return {**change, "reason": "unsupported"} if refused else change

        return _rewrite_changes(forward(), rewrite)


class DownloadReportedAsRefusedNavigation(BrokenDriver):
    """A download is reported as a navigation_refused change (as if the page had tried to leave)."""

    def broken_state(self, forward: Forward) -> Any:
        def rewrite(change: dict[str, Any]) -> dict[str, Any]:
            if change["type"] != "download":
                return change
            return {
                "type": "navigation_refused",
                "tab_id": change["tab_id"],
                "reason": "policy",
                "sequence": change["sequence"],
            }

        return _rewrite_changes(forward(), rewrite)


class HistoryKeepsTheOldest(BrokenDriver):
    """The change history keeps its first four changes and counts every later one as dropped.

    The counters stay consistent (sequence = dropped_changes + listed changes); only which changes stay is wrong.
    The reference underneath keeps its default, longer history, whatever the check asks for.
    """

    KEPT = 4

    @classmethod
    def inner_environment(cls, env: Environment) -> Any:
        return EnvironmentView(env, hints=dataclasses.replace(env.hints, limits={}))

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        observation = state.get("observation")
        if isinstance(observation, dict) and len(observation["changes"]) > self.KEPT:
            observation["changes"] = observation["changes"][: self.KEPT]
            observation["dropped_changes"] = observation["sequence"] - self.KEPT
        return state


set_checked_no_op_skips_the_ref = factory_for(SetCheckedNoOpSkipsTheRef)
hold_keys_skips_unknown_keys = factory_for(HoldKeysSkipsUnknownKeys)
scope_refs_follow_their_label = factory_for(ScopeRefsFollowTheirLabel)
scoped_read_clicks_a_button = factory_for(ScopedReadClicksAButton)
scripts_run_in_blank_tabs = factory_for(ScriptsRunInBlankTabs)
defines_list_tabs = factory_for(DefinesListTabs)
profile_carries_user_cookies = factory_for(ProfileCarriesUserCookies)
coordinates_follow_the_new_page = factory_for(CoordinatesFollowTheNewPage)
state_ignores_cancellation = factory_for(StateIgnoresCancellation)
switch_reported_as_navigation = factory_for(SwitchReportedAsNavigation)
policy_refusal_reported_as_unsupported = factory_for(PolicyRefusalReportedAsUnsupported)
download_reported_as_refused_navigation = factory_for(DownloadReportedAsRefusedNavigation)
history_keeps_the_oldest = factory_for(HistoryKeepsTheOldest)
