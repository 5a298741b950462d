"""Browser drivers with exactly one deliberate defect each, for proving that the contract checks catch them.

Approach
--------
Every broken driver wraps a working one: the reference sync driver made by ``reference.browser.sync_factory``
(unwrapped with :func:`conformance.harness.loop.open_driver`, exactly as the harness unwraps any factory). The
wrapper, :class:`BrokenDriver`, exposes each member the reference implements. A member passes straight through
unless the subclass defines a hook for it - ``broken_<member>(self, arguments, forward)``, or
``broken_state(self, forward)`` - and that hook is where the single defect lives. ``forward`` runs the
reference method with the very ``cancelled`` keyword the caller passed, so a hook changes only what its defect
changes.

The wrapped methods are built with :func:`functools.wraps`, so ``inspect.signature`` still sees the reference
method's own signature: the SDK keeps finding the same flavour (sync) and the same optional keyword-only
``cancelled`` parameter it would find on the reference driver. A defect therefore never hides behind a changed
signature, and a check that fails can only have failed on the behaviour the hook changed.

Each class's docstring says what it breaks; ``test_broken_drivers.py`` (in tests/conformance/contracts/browser)
says which clause the contract suite must blame for it. Every ``--driver`` factory below is a generator (one of
the documented factory forms) that closes the reference driver when the check is done::

    pytest --driver=tests.broken.drivers:duplicate_refs --certificate=out -k test_read_page_reports_the_form

The variants at the end are not defects at all: they behave in ways the documents leave to the SDK or to the
driver (reporting a full page URL, leaving a long title for the SDK to cut, opening a tab in the background,
returning from navigate before the page has loaded, retiring the session after a refused redirect), and the suite
must accept them. They guard the checks against false positives and against judging the reference's habits.

``TextReadsClickNeverClicks`` is neither: it implements click, but offers no structured read, so no check can
reach click. Its certificate must say click is unverified (``test_broken_drivers.py``).
"""

from __future__ import annotations

import base64
import contextlib
import copy
import dataclasses
import functools
import io
import json
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Final
from urllib.parse import parse_qs, urlsplit, urlunsplit

from openai.lib.browser import BrowserError
from PIL import Image

from conformance.harness.environment import Environment
from conformance.harness.factory import open_driver
from conformance.harness.loop import HarnessLoop
from conformance.harness.profile import declares_cancelled
from conformance.members import DRIVER_METHOD_NAMES
from tests.broken.environment_view import EnvironmentView

Arguments = dict[str, Any]
Forward = Callable[..., Any]

# Members that act on an element named by a ref.
ELEMENT_ACTIONS: Final = ("click", "type", "select_option", "hover", "scroll_to", "set_checked")
# Page script that lists the live values of the fields the documents call private.
PRIVATE_FIELD_VALUES: Final = (
    "JSON.stringify(Array.from(document.querySelectorAll("
    "'input[type=password], input[autocomplete=one-time-code]')).map((field) => field.value))"
)


class BrokenDriver:
    """Passes every member through to the wrapped reference driver; a subclass breaks one thing with a hook.

    Two class-level hooks change how the reference is made rather than what a member does: ``inner_environment``
    (the environment the reference factory sees, e.g. with other permitted origins) and ``prepare`` (run once
    in the certification process before the reference is created). ``HIDDEN`` members are not offered at all.
    """

    HIDDEN: ClassVar[tuple[str, ...]] = ()

    def __init__(self, inner: Any, env: Environment) -> None:
        self.inner = inner
        self.env = env
        for name in ("state", *DRIVER_METHOD_NAMES):
            method = getattr(inner, name, None)
            if callable(method) and name not in self.HIDDEN:
                setattr(self, name, self.wrap(name, method))

    @classmethod
    def inner_environment(cls, env: Environment) -> Any:
        return env

    @classmethod
    def prepare(cls) -> None:
        return None

    def wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        hook = getattr(self, f"broken_{name}", None)
        if hook is None:
            # Not the defective member: hand out the reference's own bound method, untouched.
            return method

        @functools.wraps(method)
        def member(*args: Any, **kwargs: Any) -> Any:
            def forward(*forwarded: Any) -> Any:
                return method(*forwarded, **kwargs)

            cancelled = kwargs.get("cancelled")
            if callable(cancelled) and cancelled():
                # A call already cancelled gets the reference's own answer: each driver breaks its one thing, and
                # the drivers that break cancellation itself are written for that (IgnoresCancellation).
                return forward(*args)
            return hook(*args, forward)

        return member

    # ----- helpers for hooks: direct calls on the reference, never through the SDK --------------------------

    def reference(self, member: str, arguments: Arguments) -> Any:
        return getattr(self.inner, member)(arguments)

    def reference_state(self) -> Any:
        return self.inner.state()

    def active_tab_id(self) -> str | None:
        tabs = self.reference_state().get("tabs", [])
        return next((str(tab["id"]) for tab in tabs if tab.get("active") is True), None)

    def script(self, source: str, tab_id: str | None = None) -> str:
        result = self.reference("run_script", {"tab_id": tab_id, "source": source, "timeout_ms": 5000})
        return str(result)

    def click_first_button(self, report: Any, tab_id: str | None) -> None:
        """Click the first button ``report`` lists, through the reference: a read that does so touches the page."""
        buttons = [element for element in elements_of(report) if element.get("role") == "button"]
        if buttons:
            self.reference("click", {"target": buttons[0]["ref"], "tab_id": tab_id})


def elements_of(report: Any) -> list[dict[str, Any]]:
    if isinstance(report, dict) and isinstance(report.get("elements"), list):
        return [element for element in report["elements"] if isinstance(element, dict)]
    return []


def with_first_element(report: Any, change: Callable[[dict[str, Any]], dict[str, Any]], role: str | None = None) -> Any:
    """A copy of a structured read whose first element (of ``role``, if given) is replaced by ``change(element)``."""
    if not isinstance(report, dict):
        return report
    changed = copy.deepcopy(report)
    for index, element in enumerate(elements_of(changed)):
        if role is None or element.get("role") == role:
            changed["elements"][index] = change(element)
            break
    return changed


# ----- tab state ---------------------------------------------------------------------------------------------


def every_tab_active(state: Any, active: bool) -> Any:
    """A copy of a reported state in which every tab says ``active``."""
    return {**state, "tabs": [{**tab, "active": active} for tab in state["tabs"]]}


class TwoActiveTabs(BrokenDriver):
    """state() marks every tab active, so with two tabs open two of them claim to be the active one."""

    def broken_state(self, forward: Forward) -> Any:
        return every_tab_active(forward(), True)


class NoActiveTab(BrokenDriver):
    """state() marks no tab active although the driver shows a page."""

    def broken_state(self, forward: Forward) -> Any:
        return every_tab_active(forward(), False)


class GhostActiveTab(BrokenDriver):
    """state() always lists one more tab, a blank one that also claims to be active: two active tabs from the start."""

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        state["tabs"].append({"id": "ghost-tab", "title": "", "url": "about:blank", "active": True})
        return state


class DuplicateTabIds(BrokenDriver):
    """state() lists the first tab a second time (inactive) under the same ID."""

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        if state["tabs"]:
            state["tabs"].append({**state["tabs"][0], "active": False})
        return state


class CredentialsInStateUrl(BrokenDriver):
    """A tab told to load ``http://user:password@host/...`` reports that userinfo in its state URL."""

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.userinfo: dict[str, str] = {}  # tab ID -> "user:password"

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        # Remembered before the navigation runs: even a driver that refuses the URL must not repeat it.
        userinfo, at, _host = urlsplit(str(arguments["url"])).netloc.rpartition("@")
        tab_id = arguments.get("tab_id") or self.active_tab_id()
        if at and tab_id is not None:
            self.userinfo[tab_id] = userinfo
        return forward(arguments)

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        for tab in state["tabs"]:
            userinfo = self.userinfo.get(tab["id"])
            parts = urlsplit(tab["url"])
            if userinfo and parts.scheme in ("http", "https"):
                tab["url"] = urlunsplit(parts._replace(netloc=f"{userinfo}@{parts.netloc}"))
        return state


class ObservationSequenceOffByOne(BrokenDriver):
    """Observation metadata counts one change more than it has: sequence != dropped_changes + len(changes)."""

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        if isinstance(state.get("observation"), dict):
            state["observation"]["sequence"] += 1
        return state


class ObservationSequenceNotANumber(BrokenDriver):
    """Observation metadata whose sequence is NaN, as a driver counting from a page attribute the page lacks gets it
    (``Number(undefined)``): the SDK rejects every such state, so every check meeting it stands on BR-OBS-001."""

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        if isinstance(state.get("observation"), dict):
            state["observation"]["sequence"] = float("nan")
        return state


class TitleCutInsideACharacter(BrokenDriver):
    """A title over 1,024 bytes is cut at byte 1,024 even inside a character, leaving a replacement character.

    The full title comes from the live page, the way a driver doing its own (wrong) cut would get it.
    """

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        observation = state.get("observation")
        if isinstance(observation, dict) and observation.get("title_truncated"):
            for tab in state["tabs"]:
                if tab["active"]:
                    full = self.script("document.title", tab["id"])
                    tab["title"] = full.encode("utf-8")[:1024].decode("utf-8", errors="replace")
        return state


class TitleCutWithoutFlag(BrokenDriver):
    """A title over 1,024 bytes is cut correctly, but title_truncated stays false."""

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        if isinstance(state.get("observation"), dict):
            state["observation"]["title_truncated"] = False
        return state


# ----- reads -------------------------------------------------------------------------------------------------


class DuplicateRefs(BrokenDriver):
    """read_page lists its first control twice, under the same ref."""

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        report = forward(arguments)
        elements = elements_of(report)
        if elements:
            report = {**report, "elements": [*copy.deepcopy(elements), copy.deepcopy(elements[0])]}
        return report


class RoleOutsideTheSeven(BrokenDriver):
    """read_page reports its first control with the role "link", which is not one of the seven roles."""

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        return with_first_element(forward(arguments), lambda element: {**element, "role": "link"})


class EmptyLabel(BrokenDriver):
    """read_page reports its first control with an empty label."""

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        return with_first_element(forward(arguments), lambda element: {**element, "label": ""})


class OversizedRef(BrokenDriver):
    """read_page issues a 300-byte ref for its first control (the limit is 256 bytes).

    Actions translate the long ref back, so the ref works: its size is the only defect.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.short_refs: dict[str, str] = {}  # long ref -> the reference driver's ref

    def lengthen(self, element: dict[str, Any]) -> dict[str, Any]:
        short = str(element["ref"])
        long = (short + "-" + "x" * 300)[:300]
        self.short_refs[long] = short
        return {**element, "ref": long}

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        return with_first_element(forward(arguments), self.lengthen)

    def shorten(self, arguments: Arguments, forward: Forward) -> Any:
        target = arguments.get("target")
        if isinstance(target, str) and target in self.short_refs:
            return forward({**arguments, "target": self.short_refs[target]})
        return forward(arguments)

    broken_click = broken_type = broken_select_option = shorten
    broken_hover = broken_scroll_to = broken_set_checked = shorten


class UnknownOmissionCode(BrokenDriver):
    """read_page adds the omission code "truncated", which is not in the documented list."""

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        report = forward(arguments)
        if isinstance(report, dict):
            report = {**report, "omitted": [*report.get("omitted", []), "truncated"]}
        return report


class CheckedOnAButton(BrokenDriver):
    """read_page reports ``checked: false`` on its first button (checked belongs to checkboxes and radios)."""

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        return with_first_element(forward(arguments), lambda element: {**element, "checked": False}, role="button")


class PageTextWithElements(BrokenDriver):
    """get_page_text returns a structured read that carries the page's controls (it must carry none)."""

    def broken_get_page_text(self, arguments: Arguments, forward: Forward) -> Any:
        text = forward(arguments)
        controls = self.reference("read_page", {"filter": "interactive", "tab_id": arguments["tab_id"]})
        if isinstance(text, dict):
            return {**text, "elements": elements_of(controls)}
        return {"version": 1, "text": text or "", "elements": elements_of(controls), "omitted": []}


class RefsOnlyInText(BrokenDriver):
    """read_page and find list their controls only in the read's text ("[ref] role label" lines), with an empty
    elements list and nothing in omitted: the controls are neither reported nor said to be left out."""

    def only_in_text(self, arguments: Arguments, forward: Forward) -> Any:
        report = forward(arguments)
        if not isinstance(report, dict):
            return report
        lines = [f"[{e.get('ref')}] {e.get('role')} {e.get('label')}" for e in elements_of(report)]
        return {**report, "text": "\n".join([str(report.get("text", "")), *lines]), "elements": []}

    broken_read_page = broken_find = only_in_text


class PrivateValueInRead(BrokenDriver):
    """read_page appends the live values of password and one-time-code fields to its text."""

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        report = forward(arguments)
        secrets = json.loads(self.script(PRIVATE_FIELD_VALUES, arguments["tab_id"]))
        leak = " ".join(str(value) for value in secrets if value)
        if not leak:
            return report
        if isinstance(report, dict):
            return {**report, "text": f"{report['text']}\n{leak}"}
        return f"{report or ''}\n{leak}"


class ReadClicksAButton(BrokenDriver):
    """read_page returns the reference's report after clicking the first button in it, so reading touches the page."""

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        report = forward(arguments)
        self.click_first_button(report, arguments["tab_id"])
        return report


# ----- refs and errors ---------------------------------------------------------------------------------------


class StaleRefAccepted(BrokenDriver):
    """A ref whose control was replaced is quietly redirected to the control that now has its role and label.

    The reference refuses such a ref with BrowserError; this driver catches that, reads the page again and
    acts on the new control, which is exactly what refs must never do.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.seen: dict[str, tuple[Any, Any]] = {}  # ref -> (role, label) it had when it was read

    def remember(self, report: Any) -> Any:
        for element in elements_of(report):
            self.seen[str(element.get("ref"))] = (element.get("role"), element.get("label"))
        return report

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        return self.remember(forward(arguments))

    def broken_find(self, arguments: Arguments, forward: Forward) -> Any:
        return self.remember(forward(arguments))

    def retarget(self, arguments: Arguments, forward: Forward) -> Any:
        try:
            return forward(arguments)
        except BrowserError:
            known = self.seen.get(str(arguments.get("target")))
            if known is None:
                raise
            fresh = self.remember(self.reference("read_page", {"filter": "all", "tab_id": arguments.get("tab_id")}))
            for element in elements_of(fresh):
                if (element.get("role"), element.get("label")) == known:
                    return forward({**arguments, "target": element["ref"]})
            raise

    broken_click = broken_type = broken_select_option = retarget
    broken_hover = broken_scroll_to = broken_set_checked = retarget


class ErrorWithPageContent(BrokenDriver):
    """Every BrowserError message is extended with the start of the page's text."""

    def wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        if name == "state":
            return method

        @functools.wraps(method)
        def member(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except BrowserError as error:
                raise BrowserError(self.extended(error)) from None

        return member

    def extended(self, error: BrowserError) -> str:
        return f"{error} The page says: {self.page_excerpt()}"

    def page_excerpt(self) -> str:
        text = self.reference("get_page_text", {"tab_id": None})
        body = text.get("text", "") if isinstance(text, dict) else str(text or "")
        return " ".join(body.split())[:200]


# ----- actions -----------------------------------------------------------------------------------------------


class SetCheckedToggles(BrokenDriver):
    """set_checked clicks the control whatever it asks for, so it toggles instead of setting."""

    def broken_set_checked(self, arguments: Arguments, forward: Forward) -> Any:
        return self.reference("click", {"target": arguments["target"], "tab_id": arguments["tab_id"]})


class TypeIgnoresFocus(BrokenDriver):
    """type with a null target types into the page's first textbox instead of the focused control."""

    def broken_type(self, arguments: Arguments, forward: Forward) -> Any:
        if arguments.get("target") is not None:
            return forward(arguments)
        report = self.reference("read_page", {"filter": "interactive", "tab_id": arguments["tab_id"]})
        first = next((element for element in elements_of(report) if element.get("role") == "textbox"), None)
        if first is None:
            return forward(arguments)
        return forward({**arguments, "target": first["ref"]})


class WaitForReturnsAtOnce(BrokenDriver):
    """wait_for returns success immediately without looking for the text (unknown tabs are still refused)."""

    def broken_wait_for(self, arguments: Arguments, forward: Forward) -> Any:
        tab_id = arguments.get("tab_id")
        known = [tab["id"] for tab in self.reference_state()["tabs"]]
        if tab_id is not None and tab_id not in known:
            return forward(arguments)
        return None


class IgnoresCancellation(BrokenDriver):
    """Every member keeps declaring ``cancelled`` but never passes it on, so a stop request changes nothing."""

    def ignores(self, name: str) -> bool:
        return True

    def wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        if not self.ignores(name) or not declares_cancelled(method):
            return method

        @functools.wraps(method)
        def member(*args: Any, **kwargs: Any) -> Any:
            kwargs.pop("cancelled", None)
            return method(*args, **kwargs)

        return member


# ----- images and pointer input ------------------------------------------------------------------------------


class ScreenshotAtHalfSize(BrokenDriver):
    """screenshot returns the viewport scaled to half its CSS size, so pixels no longer match coordinates."""

    def broken_screenshot(self, arguments: Arguments, forward: Forward) -> Any:
        image = forward(arguments)
        payload = str(image["image_url"]).partition(",")[2]
        picture = Image.open(io.BytesIO(base64.b64decode(payload)))
        smaller = picture.resize((max(1, picture.width // 2), max(1, picture.height // 2)))
        buffer = io.BytesIO()
        smaller.save(buffer, format="PNG")
        encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
        return {**image, "image_url": f"data:image/png;base64,{encoded}"}


class ScreenshotAsBareBase64(BrokenDriver):
    """screenshot's image_url is the bare base64 of the PNG: neither a data URL nor an http(s) URL."""

    def broken_screenshot(self, arguments: Arguments, forward: Forward) -> Any:
        image = forward(arguments)
        return {**image, "image_url": str(image["image_url"]).partition(",")[2]}


class ScreenshotHovers(BrokenDriver):
    """screenshot first moves the pointer over a button (a hover and nothing more), then takes the reference's image."""

    def broken_screenshot(self, arguments: Arguments, forward: Forward) -> Any:
        report = self.reference("read_page", {"filter": "interactive", "tab_id": arguments["tab_id"]})
        buttons = [element for element in elements_of(report) if element.get("role") == "button"]
        if buttons:
            self.reference("hover", {"target": buttons[0]["ref"], "tab_id": arguments["tab_id"]})
        return forward(arguments)


class ZoomIgnoresRegion(BrokenDriver):
    """zoom checks the region like the reference, then returns the whole viewport instead of the crop."""

    def broken_zoom(self, arguments: Arguments, forward: Forward) -> Any:
        forward(arguments)
        return self.reference("screenshot", {"tab_id": arguments["tab_id"]})


class ClickAtOffset(BrokenDriver):
    """click_at lands 9 CSS px right of and 6 px below the requested point (kept inside the viewport)."""

    def broken_click_at(self, arguments: Arguments, forward: Forward) -> Any:
        width, height = self.env.hints.viewport
        shifted = {**arguments, "x": min(arguments["x"] + 9, width - 1), "y": min(arguments["y"] + 6, height - 1)}
        return forward(shifted)


# ----- opt-in members: scoped reads, scripts, file grants ----------------------------------------------------


class ScopedReadAsText(BrokenDriver):
    """read_page_scoped returns only the text of its read (a string), dropping the scopes report."""

    def broken_read_page_scoped(self, arguments: Arguments, forward: Forward) -> Any:
        report = forward(arguments)
        return report.get("text", "") if isinstance(report, dict) else report


class ScriptRunsTwice(BrokenDriver):
    """run_script runs the approved source a second time (a retry that forgets the first run happened)."""

    def broken_run_script(self, arguments: Arguments, forward: Forward) -> Any:
        forward(arguments)
        return forward(arguments)


class UploadGrantReused(BrokenDriver):
    """A second upload_file with an already used grant answers with the first, completed outcome again."""

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.completed: dict[str, Any] = {}  # grant ID -> the outcome of its completed upload

    def broken_upload_file(self, arguments: Arguments, forward: Forward) -> Any:
        grant_id = str(arguments["grant_id"])
        if grant_id in self.completed:
            return copy.deepcopy(self.completed[grant_id])
        outcome = forward(arguments)
        if isinstance(outcome, dict) and outcome.get("status") == "completed":
            self.completed[grant_id] = copy.deepcopy(outcome)
        return outcome


# ----- more single defects: one per member or clause family the list above leaves out -------------------------


class RefsChangeBetweenReads(BrokenDriver):
    """Each read_page issues fresh refs (a read counter appended), although the page did not change.

    Actions accept any of them (the counter is stripped), so the refs work: their instability is the only defect.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.reads = 0

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        self.reads += 1
        report = forward(arguments)
        if not isinstance(report, dict):
            return report
        elements = [{**element, "ref": f"{element['ref']}~{self.reads}"} for element in elements_of(report)]
        return {**report, "elements": elements}

    def strip(self, arguments: Arguments, forward: Forward) -> Any:
        target = arguments.get("target")
        if isinstance(target, str) and "~" in target:
            return forward({**arguments, "target": target.rsplit("~", 1)[0]})
        return forward(arguments)

    broken_click = broken_type = broken_select_option = strip
    broken_hover = broken_scroll_to = broken_set_checked = strip


class ClickLandsOnTheNeighbour(BrokenDriver):
    """click checks its ref, then clicks the control listed after it (an off-by-one in the driver's ref table)."""

    def broken_click(self, arguments: Arguments, forward: Forward) -> Any:
        forward_target = arguments.get("target")
        listed = elements_of(self.reference("read_page", {"filter": "all", "tab_id": arguments.get("tab_id")}))
        refs = [str(element.get("ref")) for element in listed]
        if forward_target in refs:
            index = refs.index(str(forward_target))
            neighbour = refs[index + 1] if index + 1 < len(refs) else refs[index - 1]
            return forward({**arguments, "target": neighbour})
        return forward(arguments)


class TypeAppends(BrokenDriver):
    """type with a target clicks the control and types at the caret, adding to what it held instead of replacing."""

    def broken_type(self, arguments: Arguments, forward: Forward) -> Any:
        if arguments.get("target") is None:
            return forward(arguments)
        self.reference("click", {"target": arguments["target"], "tab_id": arguments.get("tab_id")})
        self.reference("key", {"keys": ["End"], "tab_id": arguments.get("tab_id")})
        return forward({**arguments, "target": None})


class SelectOptionByLabel(BrokenDriver):
    """select_option matches the requested values against option labels, not values.

    A value that is no option's label falls back to the control's first option, the way a driver that silently
    ignores a failed match leaves the default selected.
    """

    def broken_select_option(self, arguments: Arguments, forward: Forward) -> Any:
        listed = elements_of(self.reference("read_page", {"filter": "all", "tab_id": arguments.get("tab_id")}))
        control = next((element for element in listed if element.get("ref") == arguments.get("target")), None)
        options = [option for option in (control or {}).get("options") or [] if isinstance(option, dict)]
        if not options:
            return forward(arguments)
        chosen = [str(option["value"]) for option in options if option.get("label") in arguments["values"]]
        return forward({**arguments, "values": chosen or [str(options[0]["value"])]})


class ScrollIgnoresDirection(BrokenDriver):
    """scroll always scrolls down, whatever direction it is asked for."""

    def broken_scroll(self, arguments: Arguments, forward: Forward) -> Any:
        return forward({**arguments, "direction": "down"})


class ClosedTabStaysActive(BrokenDriver):
    """After close_tab closes the active tab, state keeps listing that tab as the active one."""

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.ghost: dict[str, Any] | None = None

    def broken_close_tab(self, arguments: Arguments, forward: Forward) -> Any:
        closing = next((tab for tab in self.reference_state()["tabs"] if tab["id"] == arguments["tab_id"]), None)
        result = forward(arguments)
        if closing is not None and closing.get("active") is True:
            self.ghost = copy.deepcopy(closing)
        return result

    def broken_switch_tab(self, arguments: Arguments, forward: Forward) -> Any:
        self.ghost = None
        return forward(arguments)

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        if self.ghost is not None:
            for tab in state["tabs"]:
                tab["active"] = False
            state["tabs"].append(copy.deepcopy(self.ghost))
        return state


class RedirectFollowed(BrokenDriver):
    """navigate lets the server's redirect through: the driver fetches wherever ``__redirect`` points, any origin."""

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        parts = urlsplit(str(arguments["url"]))
        if parts.path.endswith("/__redirect"):
            target = parse_qs(parts.query).get("to", [""])[0]
            if target:
                with contextlib.suppress(OSError), urllib.request.urlopen(target, timeout=5) as response:
                    response.read()
        return forward(arguments)


class PolicyOnlyInNavigate(BrokenDriver):
    """The URL policy lives only in navigate and new_tab: the browser itself lets pages reach any origin.

    The driver refuses a requested URL outside the permitted origin, but its browser is opened with no network
    policy of its own, so a popup, redirect or subresource the page starts goes wherever it points.
    """

    @classmethod
    def inner_environment(cls, env: Environment) -> Any:
        return with_origins(env, (env.main_origin, env.other_origin))

    def refuse_other_origins(self, arguments: Arguments, forward: Forward) -> Any:
        url = arguments.get("url")
        if isinstance(url, str) and not url.startswith(self.env.main_origin + "/"):
            raise BrowserError("That address is outside the permitted sites.")
        return forward(arguments)

    broken_navigate = broken_new_tab = refuse_other_origins


class PopupPageLosesItsQuery(BrokenDriver):
    """navigate drops the query of popup.html, so the page is never told to open its popup.

    Not a network-policy defect: with no popup attempted there is nothing to hold back, and the popup clause can
    only be "not checked: could not provoke it", never failed (nor passed).
    """

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        url = str(arguments.get("url"))
        if urlsplit(url).path.endswith("/popup.html"):
            arguments = {**arguments, "url": urlunsplit(urlsplit(url)._replace(query=""))}
        return forward(arguments)


class OpensOnlyExactPageUrls(BrokenDriver):
    """navigate refuses, with BrowserError, any URL with a query string: its allow-list holds exact page URLs.

    Not a network-policy defect (refusing more than the task permits never lets the browser reach another origin):
    the network checks whose page needs its query to know what to try are "could not provoke", never failed.
    """

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        if urlsplit(str(arguments.get("url"))).query:
            raise BrowserError("Only the task's exact page URLs can be opened.")
        return forward(arguments)


class DialogsAcceptedSilently(BrokenDriver):
    """Page dialogs are accepted instead of dismissed: confirm() sees true and prompt() its default answer."""

    @classmethod
    def prepare(cls) -> None:
        from reference.browser._session import BrowserSession
        from reference.flows import call

        def accept(session: Any, dialog: Any) -> Iterator[Any]:
            yield call(dialog, "accept")

        # The reference registers its dialog handler per page as each tab opens; this process certifies only
        # this driver, so replacing the handler on the class changes exactly this one behaviour.
        setattr(BrowserSession, "_dialog", accept)  # noqa: B010 - the method is private to the reference


class DownloadBeyondItsGrant(BrokenDriver):
    """download_file ignores the grant's size limit: a first use of a download grant always completes."""

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.used: set[str] = set()
        self.completed: dict[str, Any] | None = None

    def broken_download_file(self, arguments: Arguments, forward: Forward) -> Any:
        grant_id = str(arguments["grant_id"])
        grant = next((g for g in self.env.hints.grants if g.grant_id == grant_id), None)
        first_use = grant_id not in self.used
        self.used.add(grant_id)
        outcome = forward(arguments)
        if isinstance(outcome, dict) and outcome.get("status") == "completed":
            self.completed = copy.deepcopy(outcome)
        elif grant is not None and grant.kind == "download" and first_use and self.completed is not None:
            return copy.deepcopy(self.completed)
        return outcome


class ScriptReturnsANumber(BrokenDriver):
    """run_script returns the length of the script's text result (an int) instead of the text."""

    def broken_run_script(self, arguments: Arguments, forward: Forward) -> Any:
        result = forward(arguments)
        return len(result) if isinstance(result, str) else result


class ErrorsCarryLibraryText(ErrorWithPageContent):
    """Every BrowserError message is extended with the automation library's call log (and no page content)."""

    def extended(self, error: BrowserError) -> str:
        return f"{error}\nCall log:\n  - waiting for locator('[data-ref]')"


class ScreenshotIsFixed(BrokenDriver):
    """screenshot returns the image it took the first time, whatever the page shows now."""

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.first: Any = None

    def broken_screenshot(self, arguments: Arguments, forward: Forward) -> Any:
        if self.first is None:
            self.first = forward(arguments)
        return copy.deepcopy(self.first)


class ObservationRestartsEachCall(BrokenDriver):
    """Observation metadata restarts its count at every member call, as if each call began a new history."""

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.offset = 0

    def wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        if name == "state":
            return super().wrap(name, method)

        @functools.wraps(method)
        def member(*args: Any, **kwargs: Any) -> Any:
            observation = self.reference_state().get("observation")
            if isinstance(observation, dict):
                self.offset = int(observation["sequence"])
            return method(*args, **kwargs)

        return member

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        observation = state.get("observation")
        if isinstance(observation, dict) and self.offset:
            kept = [
                {**change, "sequence": change["sequence"] - self.offset}
                for change in observation["changes"]
                if change.get("sequence", 0) > self.offset
            ]
            observation["sequence"] -= self.offset
            observation["dropped_changes"] = observation["sequence"] - len(kept)
            observation["changes"] = kept
        return state


class CancelledHonouredBySomeMembers(IgnoresCancellation):
    """Only the ref-based and navigation members heed ``cancelled``; coordinate input, keys and scroll ignore it."""

    IGNORING: Final = ("click_at", "hover_at", "drag_path", "hold_keys", "key", "scroll")

    def ignores(self, name: str) -> bool:
        return name in self.IGNORING


class HoverAtClicks(BrokenDriver):
    """hover_at moves the pointer there by clicking the point (a press and release, not just a move)."""

    def broken_hover_at(self, arguments: Arguments, forward: Forward) -> Any:
        point = {"tab_id": arguments["tab_id"], "x": arguments["x"], "y": arguments["y"]}
        return self.reference("click_at", {**point, "button": "left", "click_count": 1, "keys": []})


class DragPathSkipsTheMiddle(BrokenDriver):
    """drag_path drags straight from the first point to the last, skipping every point between."""

    def broken_drag_path(self, arguments: Arguments, forward: Forward) -> Any:
        path = arguments["path"]
        return forward({**arguments, "path": [path[0], path[-1]]})


class KeyPressesOneAtATime(BrokenDriver):
    """key presses the listed keys one after another, releasing each, so a chord's modifier is never held."""

    def broken_key(self, arguments: Arguments, forward: Forward) -> Any:
        result = None
        for key in arguments["keys"]:
            result = forward({**arguments, "keys": [key]})
        return result


class NavigateIgnoresTabId(BrokenDriver):
    """navigate always loads the page in the active tab, whichever tab it names (unknown IDs are still refused)."""

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        known = [tab["id"] for tab in self.reference_state()["tabs"]]
        if arguments.get("tab_id") in known:
            return forward({**arguments, "tab_id": None})
        return forward(arguments)


class SwitchTabDoesNothing(BrokenDriver):
    """switch_tab accepts a known tab ID and returns, but never activates that tab."""

    def broken_switch_tab(self, arguments: Arguments, forward: Forward) -> Any:
        known = [tab["id"] for tab in self.reference_state()["tabs"]]
        if arguments.get("tab_id") not in known:
            return forward(arguments)
        return None


class HoldKeysLetsGoAtOnce(BrokenDriver):
    """hold_keys presses and releases the keys at once instead of holding them for duration_ms."""

    def broken_hold_keys(self, arguments: Arguments, forward: Forward) -> Any:
        return forward({**arguments, "duration_ms": 1})


class ClickAtAlwaysLeft(BrokenDriver):
    """click_at presses the left button whatever button it is asked for."""

    def broken_click_at(self, arguments: Arguments, forward: Forward) -> Any:
        return forward({**arguments, "button": "left"})


class PageTextDropsEmoji(BrokenDriver):
    """get_page_text drops every character outside the Basic Multilingual Plane (emoji among them)."""

    def broken_get_page_text(self, arguments: Arguments, forward: Forward) -> Any:
        report = forward(arguments)

        def narrow(text: str) -> str:
            return "".join(character for character in text if ord(character) <= 0xFFFF)

        if isinstance(report, dict):
            return {**report, "text": narrow(str(report.get("text", "")))}
        return narrow(report) if isinstance(report, str) else report


class FindReportsTheFirstControl(BrokenDriver):
    """find ignores its query and reports the page's first control."""

    def broken_find(self, arguments: Arguments, forward: Forward) -> Any:
        report = self.reference("read_page", {"filter": "interactive", "tab_id": arguments.get("tab_id")})
        if not isinstance(report, dict):
            return forward(arguments)
        return {**report, "text": "", "elements": elements_of(report)[:1]}


class ScopedReadIgnoresDepth(BrokenDriver):
    """read_page_scoped reads the whole section whatever depth it is given."""

    def broken_read_page_scoped(self, arguments: Arguments, forward: Forward) -> Any:
        return forward({**arguments, "depth": 32})


class UnknownTabScrollsTheActiveTab(BrokenDriver):
    """scroll given a tab ID it never issued scrolls the active tab instead of refusing."""

    def broken_scroll(self, arguments: Arguments, forward: Forward) -> Any:
        known = [tab["id"] for tab in self.reference_state()["tabs"]]
        if arguments.get("tab_id") is not None and arguments["tab_id"] not in known:
            return forward({**arguments, "tab_id": None})
        return forward(arguments)


class ScrollToDoesNothing(BrokenDriver):
    """scroll_to checks its ref and returns, without bringing the control into view."""

    def broken_scroll_to(self, arguments: Arguments, forward: Forward) -> Any:
        return validate_target_then_do_nothing(self, arguments)


class HoverClicks(BrokenDriver):
    """hover clicks the referenced element instead of only moving the pointer over it."""

    def broken_hover(self, arguments: Arguments, forward: Forward) -> Any:
        return self.reference("click", {"target": arguments["target"], "tab_id": arguments.get("tab_id")})


class NewTabIgnoresUrl(BrokenDriver):
    """new_tab opens a blank tab whatever URL it is given (the URL is still checked against the policy)."""

    def broken_new_tab(self, arguments: Arguments, forward: Forward) -> Any:
        url = arguments.get("url")
        if isinstance(url, str) and not url.startswith(self.env.main_origin + "/"):
            return forward(arguments)
        return forward({**arguments, "url": None})


class DiagnosticsIgnoreTheLimit(BrokenDriver):
    """read_diagnostics always reports its whole history, up to 100 entries, whatever limit it is given."""

    def broken_read_diagnostics(self, arguments: Arguments, forward: Forward) -> Any:
        return forward({**arguments, "limit": 100})


class BoundConsentStillTypesAtTheFocus(BrokenDriver):
    """With consent bound to targets, type with a null target still types into whatever has focus.

    The reference refuses it; this driver writes the text into the focused field through the page instead.
    """

    def broken_type(self, arguments: Arguments, forward: Forward) -> Any:
        if arguments.get("target") is not None:
            return forward(arguments)
        text = json.dumps(str(arguments["text"]))
        source = (
            "(() => { const field = document.activeElement; field.value += " + text + ";"
            " field.dispatchEvent(new Event('input', {bubbles: true})); return 'typed'; })()"
        )
        self.script(source, arguments.get("tab_id"))
        return None


class IgnoresBindHintWithoutKey(BrokenDriver):
    """Ignores hints.bind_targets (the documents let a driver ignore hints) and never offers key.

    Not a defect: type with a null target types at the focus as it always does, and nothing shows the driver meant
    to honour the hint, so target-bound consent is not implemented, never failed.
    """

    HIDDEN = ("key",)

    @classmethod
    def inner_environment(cls, env: Environment) -> Any:
        return EnvironmentView(env, hints=dataclasses.replace(env.hints, bind_targets=False))


class IgnoresBindHint(BrokenDriver):
    """Ignores hints.bind_targets, as the documents allow, and keeps every member: coordinate input acts on a page
    that replaced the approved one, as any input does without bound consent. Not a defect: target-bound consent is
    not implemented, never failed (browser-use 0.13.14 behaves so and once failed BR-BIND-004)."""

    @classmethod
    def inner_environment(cls, env: Environment) -> Any:
        return EnvironmentView(env, hints=dataclasses.replace(env.hints, bind_targets=False))


class GuardBlocksTheRecorder(BrokenDriver):
    """Its network guard refuses the fixture pages' posts to the kit's own (permitted) origin: every page is shown,
    and none can report what happened to it.

    Modelled where the reference's guard cannot reach (it filters by origin): the script the reference injects
    into every document first makes the page's beacons and fetches to ``__effect`` fail, as a refused request
    would. The certificate must say the pages are shown but silent, with the fix, and stop waiting for them.
    """

    BLOCKER = (
        "(() => { const refused = (url) => String(url).includes('__effect');"
        " const beacon = navigator.sendBeacon.bind(navigator);"
        " navigator.sendBeacon = (url, data) => (refused(url) ? false : beacon(url, data));"
        " const fetched = window.fetch.bind(window);"
        " window.fetch = (url, options) => refused(url) ? Promise.reject(new TypeError('refused by the guard'))"
        " : fetched(url, options); })();"
    )

    @classmethod
    def prepare(cls) -> None:
        from reference.browser import _session

        if cls.BLOCKER not in _session._AGENT_SOURCE:
            original = _session._AGENT_SOURCE
            _session._AGENT_SOURCE = f"(function (name) {{ {cls.BLOCKER} return ({original})(name); }})"  # type: ignore[misc]


class StartPageNeverShown(BrokenDriver):
    """The driver opens on an empty page of the permitted site instead of the session's start page."""

    @classmethod
    def inner_environment(cls, env: Environment) -> Any:
        return with_start_url(env, env.url("empty.html"))


class FindRefsClickNeverClicks(BrokenDriver):
    """read_page returns plain text; find returns structured reads; click checks its target, then never clicks.

    The kit must get its refs from find (no scoped read is offered) and catch the click that does nothing.
    """

    HIDDEN = ("read_page_scoped",)

    def broken_read_page(self, arguments: Arguments, forward: Forward) -> Any:
        return as_plain_text(forward(arguments))

    def broken_click(self, arguments: Arguments, forward: Forward) -> Any:
        return validate_target_then_do_nothing(self, arguments)


class TextReadsClickNeverClicks(BrokenDriver):
    """Every read returns plain text and no scoped read is offered; click checks its target, then never clicks.

    No check can find a ref, so no check can exercise click: the certificate must say click is unverified,
    never "conforms". (The case issue 22 reported.)
    """

    HIDDEN = ("read_page_scoped",)

    def as_text(self, arguments: Arguments, forward: Forward) -> Any:
        return as_plain_text(forward(arguments))

    broken_read_page = broken_find = broken_get_page_text = as_text

    def broken_click(self, arguments: Arguments, forward: Forward) -> Any:
        return validate_target_then_do_nothing(self, arguments)


def as_plain_text(report: Any) -> Any:
    """A structured read rendered as the plain text a text-only driver returns: the page text, then one line per
    control (role and label, no ref), so a reader learns every control but cannot target one."""
    if not isinstance(report, dict):
        return report
    controls = [f"{element.get('role')}: {element.get('label')}" for element in elements_of(report)]
    return "\n".join([str(report.get("text", "")), *controls])


def validate_target_then_do_nothing(driver: BrokenDriver, arguments: Arguments) -> None:
    """Refuse an unknown tab or a ref the page does not have, like a real click would; otherwise do nothing."""
    listed = elements_of(driver.reference("read_page", {"filter": "all", "tab_id": arguments.get("tab_id")}))
    if arguments.get("target") not in [element.get("ref") for element in listed]:
        raise BrowserError("That control is not on the page any more; read the page again.")


# ----- variants the documents allow (the suite must accept them) ---------------------------------------------


class FullUrlInState(BrokenDriver):
    """Not a defect: state reports each tab's full URL, path and query included.

    spec/004 ``BrowserState`` describes a tab's url as the current page URL without browser-owned credentials, and
    spec/000 "Driver contract" has the SDK display only the origin; the SDK projects the full URL itself.
    """

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        for tab in state["tabs"]:
            if tab["url"].startswith("http"):
                tab["url"] = self.script("location.href", tab["id"])
        return state


class TitleLeftForTheSdk(BrokenDriver):
    """Not a defect: a long title is reported whole, leaving the 1,024-byte cut to the SDK.

    spec/000 "Driver contract" states the cut for state with observation metadata; the SDK makes it (and sets
    title_truncated) when the driver has not, so the check accepts either party doing it.
    """

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        observation = state.get("observation")
        if isinstance(observation, dict) and observation.get("title_truncated"):
            observation["title_truncated"] = False
            for tab in state["tabs"]:
                if tab["active"]:
                    tab["title"] = self.script("document.title", tab["id"])
        return state


class NewTabStaysInBackground(BrokenDriver):
    """Not a defect: new_tab opens its tab behind the current one, which stays active.

    spec/004 ``members`` says only that new_tab opens a tab, optionally at a URL; which tab is active afterwards is
    the driver's to report truthfully, not fixed by the documents.
    """

    def broken_new_tab(self, arguments: Arguments, forward: Forward) -> Any:
        previous = self.active_tab_id()
        result = forward(arguments)
        if previous is not None:
            self.reference("switch_tab", {"tab_id": previous})
        return result


class NavigateReturnsBeforeLoad(BrokenDriver):
    """Not a defect: navigate starts the navigation and returns before the new page has loaded.

    spec/002 "Browser driver contract" leaves when an operation returns to the driver; only its effect and a
    truthful later state are required. Refusals (unknown tab, other origin) still come from the reference.
    """

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        url = str(arguments["url"])
        known = [tab["id"] for tab in self.reference_state()["tabs"]]
        tab_id = arguments.get("tab_id")
        if not url.startswith(self.env.main_origin + "/") or (tab_id is not None and tab_id not in known):
            return forward(arguments)
        source = f"setTimeout(() => {{ location.href = {json.dumps(url)}; }}, 300); 'started'"
        self.reference("run_script", {"tab_id": tab_id, "source": source, "timeout_ms": 5000})
        return None


class EndsItselfAfterARefusedRedirect(BrokenDriver):
    """Not a defect: after refusing a redirect to a non-permitted origin, the driver retires its session.

    spec/002 "Opt in to diagnostics, scripts, and file transfers" advises retiring a session whose state became
    uncertain; every later call fails. The redirect check must judge only the refusal.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.retired = False
        for name in ("state", *DRIVER_METHOD_NAMES):
            method = getattr(self, name, None)
            if callable(method):
                setattr(self, name, self.unless_retired(method))

    def unless_retired(self, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def member(*args: Any, **kwargs: Any) -> Any:
            if self.retired:
                raise RuntimeError("the browser session was retired after a policy breach")
            return method(*args, **kwargs)

        return member

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        try:
            return forward(arguments)
        finally:
            if "/__redirect" in str(arguments["url"]):
                self.retired = True


class SlowButCorrect(BrokenDriver):
    """Not a defect: every member takes its time, half a second before acting and half a second after.

    The documents set no speed for a member (only wait_for's and run_script's own timeouts), so the checks must
    not fail a correct driver for being slow.
    """

    DELAY_SECONDS: Final = 0.5

    def wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        if name == "state":
            return method

        @functools.wraps(method)
        def member(*args: Any, **kwargs: Any) -> Any:
            time.sleep(self.DELAY_SECONDS)
            try:
                return method(*args, **kwargs)
            finally:
                time.sleep(self.DELAY_SECONDS)

        return member


# ----- factories ---------------------------------------------------------------------------------------------

# open_driver needs a loop for awaitable factories; the reference sync factory never gives it anything to run.
_LOOP: Final = HarnessLoop()


def with_origins(env: Environment, origins: tuple[str, ...]) -> Any:
    return EnvironmentView(env, allowed_origins=origins)


def with_start_url(env: Environment, url: str) -> Any:
    return EnvironmentView(env, start_url=url)


def factory_for(broken: type[BrokenDriver]) -> Callable[[Environment], Iterator[BrokenDriver]]:
    """A ``--driver`` factory that wraps a fresh reference sync driver in ``broken``."""

    def factory(env: Environment) -> Iterator[BrokenDriver]:
        from reference.browser import sync_factory

        broken.prepare()
        inner, cleanup = open_driver(sync_factory, broken.inner_environment(env), _LOOP)
        try:
            yield broken(inner, env)
        finally:
            cleanup()

    factory.__name__ = factory.__qualname__ = broken.__name__
    factory.__doc__ = broken.__doc__
    return factory


two_active_tabs = factory_for(TwoActiveTabs)
no_active_tab = factory_for(NoActiveTab)
ghost_active_tab = factory_for(GhostActiveTab)
observation_sequence_not_a_number = factory_for(ObservationSequenceNotANumber)
duplicate_tab_ids = factory_for(DuplicateTabIds)
credentials_in_state_url = factory_for(CredentialsInStateUrl)
observation_sequence_off_by_one = factory_for(ObservationSequenceOffByOne)
title_cut_inside_a_character = factory_for(TitleCutInsideACharacter)
title_cut_without_flag = factory_for(TitleCutWithoutFlag)
duplicate_refs = factory_for(DuplicateRefs)
role_outside_the_seven = factory_for(RoleOutsideTheSeven)
empty_label = factory_for(EmptyLabel)
oversized_ref = factory_for(OversizedRef)
unknown_omission_code = factory_for(UnknownOmissionCode)
checked_on_a_button = factory_for(CheckedOnAButton)
page_text_with_elements = factory_for(PageTextWithElements)
private_value_in_read = factory_for(PrivateValueInRead)
refs_only_in_text = factory_for(RefsOnlyInText)
read_clicks_a_button = factory_for(ReadClicksAButton)
stale_ref_accepted = factory_for(StaleRefAccepted)
error_with_page_content = factory_for(ErrorWithPageContent)
set_checked_toggles = factory_for(SetCheckedToggles)
type_ignores_focus = factory_for(TypeIgnoresFocus)
wait_for_returns_at_once = factory_for(WaitForReturnsAtOnce)
ignores_cancellation = factory_for(IgnoresCancellation)
screenshot_at_half_size = factory_for(ScreenshotAtHalfSize)
screenshot_hovers = factory_for(ScreenshotHovers)
screenshot_as_bare_base64 = factory_for(ScreenshotAsBareBase64)
zoom_ignores_region = factory_for(ZoomIgnoresRegion)
click_at_offset = factory_for(ClickAtOffset)
scoped_read_as_text = factory_for(ScopedReadAsText)
script_runs_twice = factory_for(ScriptRunsTwice)
upload_grant_reused = factory_for(UploadGrantReused)
full_url_in_state = factory_for(FullUrlInState)
title_left_for_the_sdk = factory_for(TitleLeftForTheSdk)
refs_change_between_reads = factory_for(RefsChangeBetweenReads)
click_lands_on_the_neighbour = factory_for(ClickLandsOnTheNeighbour)
type_appends = factory_for(TypeAppends)
select_option_by_label = factory_for(SelectOptionByLabel)
scroll_ignores_direction = factory_for(ScrollIgnoresDirection)
closed_tab_stays_active = factory_for(ClosedTabStaysActive)
redirect_followed = factory_for(RedirectFollowed)
policy_only_in_navigate = factory_for(PolicyOnlyInNavigate)
popup_page_loses_its_query = factory_for(PopupPageLosesItsQuery)
opens_only_exact_page_urls = factory_for(OpensOnlyExactPageUrls)
dialogs_accepted_silently = factory_for(DialogsAcceptedSilently)
download_beyond_its_grant = factory_for(DownloadBeyondItsGrant)
script_returns_a_number = factory_for(ScriptReturnsANumber)
errors_carry_library_text = factory_for(ErrorsCarryLibraryText)
screenshot_is_fixed = factory_for(ScreenshotIsFixed)
observation_restarts_each_call = factory_for(ObservationRestartsEachCall)
cancelled_honoured_by_some_members = factory_for(CancelledHonouredBySomeMembers)
hover_at_clicks = factory_for(HoverAtClicks)
drag_path_skips_the_middle = factory_for(DragPathSkipsTheMiddle)
key_presses_one_at_a_time = factory_for(KeyPressesOneAtATime)
navigate_ignores_tab_id = factory_for(NavigateIgnoresTabId)
switch_tab_does_nothing = factory_for(SwitchTabDoesNothing)
hold_keys_lets_go_at_once = factory_for(HoldKeysLetsGoAtOnce)
click_at_always_left = factory_for(ClickAtAlwaysLeft)
page_text_drops_emoji = factory_for(PageTextDropsEmoji)
find_reports_the_first_control = factory_for(FindReportsTheFirstControl)
scoped_read_ignores_depth = factory_for(ScopedReadIgnoresDepth)
unknown_tab_scrolls_the_active_tab = factory_for(UnknownTabScrollsTheActiveTab)
start_page_never_shown = factory_for(StartPageNeverShown)
guard_blocks_the_recorder = factory_for(GuardBlocksTheRecorder)
find_refs_click_never_clicks = factory_for(FindRefsClickNeverClicks)
text_reads_click_never_clicks = factory_for(TextReadsClickNeverClicks)
new_tab_stays_in_background = factory_for(NewTabStaysInBackground)
navigate_returns_before_load = factory_for(NavigateReturnsBeforeLoad)
ends_itself_after_a_refused_redirect = factory_for(EndsItselfAfterARefusedRedirect)
scroll_to_does_nothing = factory_for(ScrollToDoesNothing)
hover_clicks = factory_for(HoverClicks)
new_tab_ignores_url = factory_for(NewTabIgnoresUrl)
diagnostics_ignore_the_limit = factory_for(DiagnosticsIgnoreTheLimit)
bound_consent_still_types_at_the_focus = factory_for(BoundConsentStillTypesAtTheFocus)
ignores_bind_hint_without_key = factory_for(IgnoresBindHintWithoutKey)
ignores_bind_hint = factory_for(IgnoresBindHint)
slow_but_correct = factory_for(SlowButCorrect)
