"""Browser driver clauses about what a driver does: actions, tabs, images, opt-in input, network, cancelling.

Only obligations that fall on the driver are listed here; rules the SDK toolset enforces (argument validation,
approval order, result projection) belong to the toolset list. Each clause is checked through the effect the
fixture page records or the requests the fixture server sees, never through the driver's own report alone.

Families: BR-NAV navigation, BR-ACT ref-based actions and waits, BR-TAB tabs, BR-IMG screenshots and zoom,
BR-PTR coordinate input (opt-in), BR-CHK ``set_checked`` (opt-in), BR-NET the browser-side network policy,
BR-DLG page dialogs, BR-BIND target-bound consent, BR-CANCEL the per-call cancellation predicate.
"""

from __future__ import annotations

from conformance.clauses import Clause

_CONTRACT = "Driver contract"
_POINTER = "Opt in to scoped reads and pointer input"
_CONFIRM = "Confirmation, navigation, and recovery"
_RESTRICT = "Restrict URLs"
_CANCEL = "Close and cancel work"
# The SDK type declarations have no headings: a section is named by the declaration it comes from.
_MEMBER_TABLE = "members"
_DRIVER_TYPE = "BrowserDriver"

NAVIGATION: tuple[Clause, ...] = (
    Clause(
        "BR-NAV-001",
        "000",
        _CONTRACT,
        "navigate with a null tab ID loads the requested permitted URL in the active tab.",
        "navigate",
    ),
    Clause(
        "BR-NAV-002",
        "004",
        _MEMBER_TABLE,
        "navigate with a tab ID loads the page in that tab and leaves the other tabs where they were.",
        "navigate",
    ),
    Clause(
        "BR-NAV-003",
        "004",
        "BrowserState",
        "After a navigation the state reports the new page for that tab, with the same tab ID as before.",
        "navigate",
    ),
)

ACTIONS: tuple[Clause, ...] = (
    Clause(
        "BR-ACT-001",
        "000",
        _CONTRACT,
        "Action members return a string or None, never another kind of value.",
        None,
    ),
    Clause(
        "BR-ACT-002",
        "004",
        _MEMBER_TABLE,
        "click activates exactly the control its ref names, once.",
        "click",
    ),
    Clause(
        "BR-ACT-003",
        "000",
        _CONTRACT,
        "An action given a target the driver never issued is refused with an error and has no page effect.",
        None,
    ),
    Clause(
        "BR-ACT-004",
        "004",
        _MEMBER_TABLE,
        "type with a target fills that control with exactly the given text.",
        "type",
    ),
    Clause(
        "BR-ACT-005",
        "004",
        _MEMBER_TABLE,
        "type with a null target types the text into the control that has focus.",
        "type",
    ),
    Clause(
        "BR-ACT-006",
        "004",
        _MEMBER_TABLE,
        "key presses the listed keys together, in the focused control, with the modifiers it names.",
        "key",
    ),
    Clause(
        "BR-ACT-007",
        "002",
        "Select methods",
        "scroll moves the page in the requested direction: down/right raise, up/left lower the offset.",
        "scroll",
    ),
    Clause(
        "BR-ACT-008",
        "004",
        _MEMBER_TABLE,
        "scroll_to brings an observed target that starts outside the viewport into view.",
        "scroll_to",
    ),
    Clause(
        "BR-ACT-009",
        "004",
        _MEMBER_TABLE,
        "wait_for succeeds once the text becomes visible, when that happens within the timeout.",
        "wait_for",
    ),
    Clause(
        "BR-ACT-010",
        "004",
        _MEMBER_TABLE,
        "wait_for on text that never appears fails after waiting about its timeout, not sooner or far later.",
        "wait_for",
    ),
    Clause(
        "BR-ACT-011",
        "000",
        _CONTRACT,
        "wait_for is a read: it clicks, types and scrolls nothing on the page.",
        "wait_for",
    ),
    Clause(
        "BR-ACT-012",
        "004",
        _MEMBER_TABLE,
        "select_option selects exactly the requested values in the referenced select control.",
        "select_option",
    ),
    Clause(
        "BR-ACT-013",
        "004",
        _MEMBER_TABLE,
        "hover puts the pointer over the referenced element without pressing a button.",
        "hover",
    ),
    Clause(
        "BR-ACT-014",
        "004",
        _DRIVER_TYPE,
        "After an action fails, state() still reports valid current tabs (unique IDs, exactly one active).",
        None,
    ),
)

TABS: tuple[Clause, ...] = (
    Clause(
        "BR-TAB-001",
        "004",
        _MEMBER_TABLE,
        "new_tab with a URL opens one more tab showing that page.",
        "new_tab",
    ),
    Clause(
        "BR-TAB-002",
        "000",
        _CONTRACT,
        "new_tab with a null URL opens one more tab on a blank page (about:blank).",
        "new_tab",
    ),
    Clause(
        "BR-TAB-003",
        "004",
        _MEMBER_TABLE,
        "switch_tab makes the named tab the only active tab in state.",
        "switch_tab",
    ),
    Clause(
        "BR-TAB-004",
        "004",
        _MEMBER_TABLE,
        "close_tab removes the named tab from state and keeps exactly one remaining tab active.",
        "close_tab",
    ),
    Clause(
        "BR-TAB-005",
        "000",
        "Start with an async driver",
        "switch_tab and close_tab refuse a tab ID the driver never issued with an error; nothing changes.",
        None,
    ),
    Clause(
        "BR-TAB-006",
        "002",
        "Browser driver contract",
        "Tab IDs are stable: a tab keeps its ID across navigation, switching and other tabs opening/closing.",
        None,
    ),
    Clause(
        "BR-TAB-007",
        "000",
        "Start with an async driver",
        "Members with a tab_id refuse an unknown tab ID with an error and act on no tab.",
        None,
    ),
    Clause(
        "BR-TAB-008",
        "000",
        _CONTRACT,
        "A null tab_id acts on the active tab, including after switch_tab changed which tab that is.",
        None,
    ),
)

IMAGES: tuple[Clause, ...] = (
    Clause(
        "BR-IMG-001",
        "000",
        _CONTRACT,
        "screenshot returns an input_image with a decodable image source and only the permitted keys.",
        "screenshot",
    ),
    Clause(
        "BR-IMG-002",
        "002",
        "Fix missed clicks",
        "A screenshot covers the visible viewport in CSS pixels, the space pointer coordinates use.",
        "screenshot",
    ),
    Clause(
        "BR-IMG-003",
        "004",
        _MEMBER_TABLE,
        "A screenshot shows the current page of the requested tab.",
        "screenshot",
    ),
    Clause(
        "BR-IMG-004",
        "000",
        _CONTRACT,
        "zoom returns an input_image of the requested region, cropped by the driver to that region.",
        "zoom",
    ),
    Clause(
        "BR-IMG-005",
        "000",
        _CONTRACT,
        "zoom refuses a region outside the current viewport with an error.",
        "zoom",
    ),
    Clause(
        "BR-IMG-006",
        "000",
        _CONTRACT,
        "screenshot and zoom are reads: they cause no clicks, input, or scrolling on the page.",
        None,
    ),
)

POINTER: tuple[Clause, ...] = (
    Clause(
        "BR-PTR-001",
        "002",
        "Fix missed clicks",
        "click_at lands at the given CSS point of the full viewport.",
        "click_at",
    ),
    Clause(
        "BR-PTR-002",
        "000",
        _POINTER,
        "click_at presses the requested button: left, right, or middle.",
        "click_at",
    ),
    Clause(
        "BR-PTR-003",
        "000",
        _POINTER,
        "click_at clicks the requested number of times (1, 2, or 3) as one multi-click.",
        "click_at",
    ),
    Clause(
        "BR-PTR-004",
        "000",
        _POINTER,
        "click_at holds the listed modifiers during the click and releases them afterwards.",
        "click_at",
    ),
    Clause(
        "BR-PTR-005",
        "004",
        _MEMBER_TABLE,
        "hover_at moves the pointer to the CSS point without pressing a button.",
        "hover_at",
    ),
    Clause(
        "BR-PTR-006",
        "004",
        _MEMBER_TABLE,
        "drag_path presses left at the first point, moves through each point, releases at the last.",
        "drag_path",
    ),
    Clause(
        "BR-PTR-007",
        "000",
        _POINTER,
        "drag_path holds the listed modifiers during the drag and releases them afterwards.",
        "drag_path",
    ),
    Clause(
        "BR-PTR-008",
        "004",
        _MEMBER_TABLE,
        "hold_keys presses the keys, keeps them down for the duration, then releases them all.",
        "hold_keys",
    ),
    Clause(
        "BR-PTR-009",
        "000",
        _POINTER,
        "Pointer members refuse coordinates outside the current viewport with an error and no effect.",
        None,
    ),
    Clause(
        "BR-PTR-010",
        "000",
        _POINTER,
        "Pointer coordinates keep referring to the full viewport after a zoom.",
        "click_at",
    ),
)

CHECKBOX: tuple[Clause, ...] = (
    Clause(
        "BR-CHK-001",
        "004",
        _MEMBER_TABLE,
        "set_checked leaves an observed checkbox checked or unchecked as requested.",
        "set_checked",
    ),
    Clause(
        "BR-CHK-002",
        "004",
        _MEMBER_TABLE,
        "Repeating set_checked with the same value leaves the state unchanged instead of toggling it.",
        "set_checked",
    ),
    Clause(
        "BR-CHK-003",
        "000",
        _CONTRACT,
        "set_checked refuses a ref whose control was replaced since it was read, and changes no control.",
        "set_checked",
    ),
    Clause(
        "BR-CHK-004",
        "004",
        _MEMBER_TABLE,
        "set_checked refuses a target that is not a checkbox, without activating it.",
        "set_checked",
    ),
)

NETWORK: tuple[Clause, ...] = (
    Clause(
        "BR-NET-001",
        "000",
        _CONFIRM,
        "navigate to a non-permitted origin is refused by the driver's own policy: no request reaches it.",
        "navigate",
    ),
    Clause(
        "BR-NET-002",
        "000",
        _CONFIRM,
        "A refused navigation fails with an error and leaves the tab on its previous page.",
        "navigate",
    ),
    Clause(
        "BR-NET-003",
        "002",
        _RESTRICT,
        "A redirect from a permitted page to a non-permitted origin is stopped before that origin is hit.",
        None,
    ),
    Clause(
        "BR-NET-004",
        "000",
        _CONFIRM,
        "A page that follows its own link to a non-permitted origin never reaches that origin.",
        None,
    ),
    Clause(
        "BR-NET-005",
        "002",
        _RESTRICT,
        "A popup the page opens to a non-permitted origin never contacts that origin.",
        None,
    ),
    Clause(
        "BR-NET-006",
        "002",
        _RESTRICT,
        "Subresources (images, scripts, fetches) from a non-permitted origin are blocked.",
        None,
    ),
    Clause(
        "BR-NET-007",
        "000",
        _CONFIRM,
        "A download from a non-permitted origin is blocked before that origin is contacted.",
        None,
    ),
    Clause(
        "BR-NET-008",
        "002",
        _RESTRICT,
        "new_tab to a non-permitted origin is refused by the driver: no request reaches that origin.",
        "new_tab",
    ),
)

DIALOGS: tuple[Clause, ...] = (
    Clause(
        "BR-DLG-001",
        "000",
        _CONFIRM,
        "A page alert does not block the driver: it is dismissed and later operations complete.",
        None,
    ),
    Clause(
        "BR-DLG-002",
        "000",
        _CONFIRM,
        "A page confirm() is dismissed, never accepted on the page's behalf: the page sees false.",
        None,
    ),
    Clause(
        "BR-DLG-003",
        "000",
        _CONFIRM,
        "A page prompt() is dismissed without an answer: the page sees null.",
        None,
    ),
    Clause(
        "BR-DLG-004",
        "004",
        "BrowserStateChange",
        "Dialog notices in state carry the matching kind and never the dialog's text.",
        None,
    ),
)

BINDING: tuple[Clause, ...] = (
    Clause(
        "BR-BIND-001",
        "000",
        _CONFIRM,
        "With consent bound to targets, type with a null target is refused and types nothing.",
        "type",
    ),
    Clause(
        "BR-BIND-002",
        "000",
        _CONFIRM,
        "With consent bound to targets, key is not offered, or every key call is refused with no effect.",
        "key",
    ),
    Clause(
        "BR-BIND-003",
        "002",
        "Approve actions and own the session",
        "With consent bound to targets, a ref from a document that was since replaced is refused.",
        None,
    ),
)

CANCELLATION: tuple[Clause, ...] = (
    Clause(
        "BR-CANCEL-001",
        "000",
        _CONTRACT,
        "A member declaring cancelled, called with it already true, makes no page effect and no request.",
        None,
    ),
    Clause(
        "BR-CANCEL-002",
        "002",
        _CANCEL,
        "A running wait_for stops soon after cancelled turns true instead of waiting out its timeout.",
        "wait_for",
    ),
    Clause(
        "BR-CANCEL-003",
        "002",
        _CANCEL,
        "A running navigation stops soon after cancelled turns true instead of waiting for a slow page.",
        "navigate",
    ),
)

CLAUSES: tuple[Clause, ...] = (
    NAVIGATION + ACTIONS + TABS + IMAGES + POINTER + CHECKBOX + NETWORK + DIALOGS + BINDING + CANCELLATION
)
