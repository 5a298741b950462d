"""Toolset clauses (TS-*): what the SDK's browser and computer toolsets must do, per the documents.

Checked by conformance/contracts/toolset against the installed SDK with the kit's recording probes. Families:
SCHEMA (tool declarations), SEL (member selection), VAL (argument validation), CONF (confirmation and URL
policy), RES (driver result handling), LIFE (busy and close), DIAG (diagnostic events), FLAV (sync/async
flavour), COMP (the computer toolset). Summaries paraphrase; the section names where the rule is stated.
"""

from __future__ import annotations

from conformance.clauses import Clause

_DRIVER = "Driver contract"
_POINTER = "Opt in to scoped reads and pointer input"
_OPT_IN = "Opt in to diagnostics, scripts, and file transfers"
_READ = "Return a structured page read"
_CONFIRM = "Confirmation, navigation, and recovery"
_STREAM = "Streaming and interrupted actions"
_MIX = "Mix browser, computer, and ordinary functions"

CLAUSES: tuple[Clause, ...] = (
    # Tool declarations
    Clause(
        "TS-SCHEMA-001",
        "000",
        _DRIVER,
        "Each exposed member is one strict function tool named browser_<member> whose fields are all "
        "required and whose parameters allow no other properties.",
    ),
    Clause(
        "TS-SCHEMA-002",
        "000",
        _DRIVER,
        "Tools come out in the SDK's fixed member order whatever order the selection lists them in.",
    ),
    Clause(
        "TS-SCHEMA-003",
        "000",
        _DRIVER,
        "A tool's parameters are exactly the documented argument fields of its member.",
    ),
    # Member selection
    Clause(
        "TS-SEL-001",
        "002",
        "Select methods",
        "Without a selection the toolset exposes the implemented default members and derives list_tabs from state().",
    ),
    Clause(
        "TS-SEL-002",
        "000",
        _POINTER,
        "Opt-in members stay off by default even when the driver implements them.",
    ),
    Clause(
        "TS-SEL-003",
        "000",
        _DRIVER,
        "members picks the complete exposed set; an empty list exposes no tools at all.",
    ),
    Clause("TS-SEL-004", "000", _DRIVER, "additional_members adds the named members to the implemented defaults."),
    Clause(
        "TS-SEL-005",
        "000",
        _DRIVER,
        "Selected names must be unique fixed member names; unknown or duplicate names are rejected.",
    ),
    Clause(
        "TS-SEL-006",
        "000",
        _DRIVER,
        "Every selected or added member must be implemented by the driver; list_tabs needs only state().",
    ),
    Clause("TS-SEL-007", "000", _DRIVER, "Passing members and additional_members together is rejected."),
    Clause(
        "TS-SEL-008",
        "000",
        _DRIVER,
        "The selection is copied at construction; later changes to the caller's list do not matter.",
    ),
    Clause(
        "TS-SEL-009",
        "000",
        _DRIVER,
        "DEFAULT_BROWSER_MEMBERS and BROWSER_MEMBERS are immutable tuples of the documented default and fixed names.",
    ),
    Clause(
        "TS-SEL-010",
        "000",
        _DRIVER,
        "A call to a disabled member raises BrowserError before any state read or consent.",
    ),
    Clause(
        "TS-SEL-011",
        "000",
        _DRIVER,
        "Disabling list_tabs does not remove state from the results of other successful calls.",
    ),
    Clause(
        "TS-SEL-012",
        "002",
        "Select methods",
        "list_tabs is answered from state(); a driver method named list_tabs is never called.",
    ),
    # Argument validation
    Clause(
        "TS-VAL-001",
        "000",
        _DRIVER,
        "A call with malformed JSON, missing fields or extra fields is refused without reaching consent or the driver.",
    ),
    Clause(
        "TS-VAL-002",
        "000",
        _DRIVER,
        "wait_for text is nonempty and at most 256 UTF-8 bytes after whitespace normalization; its "
        "timeout is an integer from 1 through 30000 ms.",
        "wait_for",
    ),
    Clause(
        "TS-VAL-003",
        "000",
        _OPT_IN,
        "run_script source is nonempty valid Unicode (kept whole) and its timeout is 1 through 30000 ms.",
        "run_script",
    ),
    Clause(
        "TS-VAL-004",
        "000",
        _OPT_IN,
        "read_diagnostics source is console or network and its limit is 1 through 100.",
        "read_diagnostics",
    ),
    Clause(
        "TS-VAL-005",
        "000",
        _POINTER,
        "Pointer coordinates are nonnegative safe integers (booleans and fractions rejected); click_at "
        "button is left/right/middle and click_count is 1, 2 or 3.",
    ),
    Clause(
        "TS-VAL-006",
        "000",
        _POINTER,
        "drag_path has 2 through 100 exact {x, y} points; modifier keys are a unique list of Control, "
        "Alt, Meta or Shift and may be empty.",
        "drag_path",
    ),
    Clause(
        "TS-VAL-007",
        "000",
        _POINTER,
        "hold_keys takes 1 through 8 unique nonempty key names of at most 64 UTF-8 bytes of valid "
        "Unicode, and a duration from 1 through 3000 ms.",
        "hold_keys",
    ),
    Clause(
        "TS-VAL-008",
        "000",
        _POINTER,
        "read_page_scoped root is None or a nonempty valid-Unicode ref of at most 256 UTF-8 bytes; depth "
        "is 1 through 32; filter is all or interactive.",
        "read_page_scoped",
    ),
    Clause("TS-VAL-009", "000", _OPT_IN, "A file grant_id is nonempty valid Unicode of at most 256 UTF-8 bytes."),
    Clause(
        "TS-VAL-010",
        "000",
        _DRIVER,
        "zoom region is four nonnegative safe integers with positive width and height.",
        "zoom",
    ),
    Clause(
        "TS-VAL-011",
        "000",
        _DRIVER,
        "tab_id may be null for the active tab except on switch_tab and close_tab, which need a string.",
    ),
    Clause("TS-VAL-012", "000", _POINTER, "set_checked takes a Boolean checked value.", "set_checked"),
    # Confirmation and URL policy
    Clause(
        "TS-CONF-001",
        "000",
        _CONFIRM,
        "Construction needs confirm when a selected member changes state or reads diagnostics, and only then.",
    ),
    Clause("TS-CONF-002", "000", _CONFIRM, "Selecting navigate or new_tab needs url_policy as well."),
    Clause(
        "TS-CONF-003",
        "000",
        _CONFIRM,
        "The URL policy runs before confirm, and confirm before the driver; a refusal stops the later steps.",
    ),
    Clause(
        "TS-CONF-004",
        "000",
        _CONFIRM,
        "Only a callback result of exactly True approves; any other value, truthy or not, refuses.",
    ),
    Clause(
        "TS-CONF-005",
        "000",
        _CONFIRM,
        "Callbacks get a detached copy of call_id, member, validated arguments and prior state; editing "
        "it cannot change the dispatched action.",
    ),
    Clause(
        "TS-CONF-006",
        "000",
        _CONFIRM,
        "Read-only members do not call confirm unless they are listed in confirm_reads.",
    ),
    Clause(
        "TS-CONF-007",
        "000",
        _CONFIRM,
        "A read in confirm_reads asks confirm (phase before_read, state None) before any state read; a "
        "refusal returns fixed text with no state and never reaches the driver.",
    ),
    Clause("TS-CONF-008", "000", _CONFIRM, "confirm_reads may list only read members registered by this toolset."),
    Clause(
        "TS-CONF-009",
        "000",
        _CONFIRM,
        "An async toolset needs async callbacks; a sync callback on it never approves an action.",
    ),
    Clause(
        "TS-CONF-010",
        "000",
        _DRIVER,
        "The cancelled keyword is passed to driver methods, state() and callbacks only when they declare "
        "it; callables without it still work.",
    ),
    Clause(
        "TS-CONF-011",
        "002",
        "Restrict URLs",
        "new_tab with a null URL still asks confirm but has no URL for the policy.",
    ),
    # Driver results
    Clause("TS-RES-001", "000", _DRIVER, "An invalid state report stops the run instead of reaching the model."),
    Clause(
        "TS-RES-002",
        "000",
        _READ,
        "Invalid BrowserReadV1 reports (version, text, roles, refs, labels, sizes, omissions) stop the "
        "run; strings are passed through unparsed and None supplies only state.",
    ),
    Clause("TS-RES-003", "000", _READ, "Unknown fields on a read, its elements and options are dropped."),
    Clause(
        "TS-RES-004",
        "000",
        _DRIVER,
        "Screenshot and zoom images are input_image with only the documented fields, at least one "
        "nonempty source and a documented detail, and are sent as an input_image part.",
    ),
    Clause(
        "TS-RES-005",
        "000",
        _POINTER,
        "read_page_scoped returns a scoped read whose scope refs are unique, distinct from element refs "
        "and bounded; strings and None are rejected.",
        "read_page_scoped",
    ),
    Clause(
        "TS-RES-006",
        "000",
        _OPT_IN,
        "read_diagnostics returns a structured read with no elements; strings and None are rejected.",
        "read_diagnostics",
    ),
    Clause(
        "TS-RES-007",
        "000",
        _OPT_IN,
        "run_script returns valid-Unicode text (empty allowed, None not), preserved whole.",
        "run_script",
    ),
    Clause(
        "TS-RES-008",
        "000",
        _OPT_IN,
        "File results have exactly version, status, effect and cleanup with a documented pair; only "
        "completed sets ok, other outcomes keep the result with ok false.",
    ),
    Clause(
        "TS-RES-009",
        "000",
        _CONFIRM,
        "BrowserError text reaches the model with current state; other driver exceptions become a fixed "
        "message that leaks nothing.",
    ),
    Clause("TS-RES-010", "000", _DRIVER, "Action members return a string or None; anything else is refused."),
    Clause(
        "TS-RES-011",
        "002",
        "Browser driver contract",
        "Current state is returned after ordinary operations, including failed ones.",
    ),
    Clause(
        "TS-RES-012",
        "000",
        _DRIVER,
        "Legacy tab state reports HTTP(S) URLs as origins without credentials, paths, queries or fragments, "
        "keeps about:blank, reduces other URLs to their scheme, and applies its 2048-byte limit to that value.",
    ),
    Clause(
        "TS-RES-013",
        "000",
        _DRIVER,
        "State with observation metadata accepts only HTTP(S) URLs or about:blank, shows HTTP(S) origins, and "
        "cuts titles to 1024 UTF-8 bytes at a character boundary, setting title_truncated.",
    ),
    Clause(
        "TS-RES-014",
        "000",
        _DRIVER,
        "The SDK imposes no tab-count limit, with or without observation metadata.",
    ),
    Clause(
        "TS-RES-015",
        "000",
        _READ,
        "Reads, images and file outcomes are copied before the final state read, so later changes by the "
        "driver to the returned object do not reach the model.",
    ),
    # Lifecycle
    Clause(
        "TS-LIFE-001",
        "000",
        _STREAM,
        "Overlapping calls on one toolset fail as busy instead of interleaving, also while a callback runs.",
    ),
    Clause(
        "TS-LIFE-002",
        "000",
        _STREAM,
        "close() is synchronous, returns draining during a call and closed otherwise, and refuses new calls.",
    ),
    Clause("TS-LIFE-003", "000", _STREAM, "The toolset never closes the caller-owned driver."),
    # Diagnostics
    Clause(
        "TS-DIAG-001",
        "000",
        _STREAM,
        "Diagnostic events carry exactly api, stage, reason, duration_ms, call_id, member and usage, and "
        "no arguments, page text, URLs, images or exception text.",
    ),
    Clause("TS-DIAG-002", "000", _STREAM, "An observer that raises changes neither approval nor results."),
    # Flavour
    Clause(
        "TS-FLAV-001",
        "000",
        _DRIVER,
        "The constructor rejects a known sync/async mismatch between the toolset and a selected driver "
        "method, in both directions.",
    ),
    Clause(
        "TS-FLAV-002",
        "002",
        "Browser driver contract",
        "A sync method whose result turns out to be awaitable is caught when called and not treated as a result.",
    ),
    # Computer toolset
    Clause(
        "TS-COMP-001",
        "002",
        "Computer driver contract",
        "The computer toolset requires the nine driver methods and rejects a known flavour mismatch.",
    ),
    Clause(
        "TS-COMP-002",
        "002",
        "Computer driver contract",
        "Each action runs once, in order, and the final screenshot is captured after them.",
    ),
    Clause(
        "TS-COMP-003",
        "002",
        "Approve actions and own the session",
        "Pending safety checks need approve_safety_checks returning exactly True before any action; a "
        "missing or declining callback stops.",
    ),
    Clause(
        "TS-COMP-004",
        "002",
        "Approve actions and own the session",
        "before_action runs immediately before each action including the final screenshot and must "
        "return exactly True; otherwise nothing more runs.",
    ),
    Clause(
        "TS-COMP-005",
        "002",
        "Computer driver contract",
        "The screenshot must be a computer_screenshot with a nonempty image_url or file_id; both are "
        "accepted and anything else stops.",
    ),
    Clause(
        "TS-COMP-006",
        "002",
        "Computer driver contract",
        "A failing driver action is not retried and no later action runs.",
    ),
    Clause(
        "TS-COMP-007",
        "000",
        _MIX,
        "Computer approval callbacks and driver methods get cancelled only when they declare it.",
    ),
    Clause(
        "TS-COMP-008",
        "000",
        _MIX,
        "Computer approval covers the action's fixed arguments: a callback editing what it was given cannot "
        "change the action the driver runs.",
    ),
    Clause(
        "TS-COMP-009",
        "000",
        _MIX,
        "After the cancelled predicate reports a stop, the computer toolset performs no further actions.",
    ),
    Clause(
        "TS-RES-016",
        "000",
        _DRIVER,
        "Any HTTP(S) URL (host names with digits, hyphens or underscores, IP literals, IDNs; any port) is "
        "reported as the same origin in legacy state and in state with observation metadata.",
    ),
    Clause(
        "TS-RES-017",
        "000",
        _DRIVER,
        "A tab ID is any string, reported unchanged; both state forms accept the same IDs.",
    ),
)
