"""Browser driver clauses about what a driver observes and reports: state, reads, refs, privacy, opt-in reads.

Only obligations that fall on the driver are listed. Rules the SDK toolset enforces on its own (argument
validation, projecting URLs to origins, copying known fields) belong to the toolset list; where the SDK's
acceptance of a report is all that is at stake, the harness clause BR-SDK-001 covers it.

Families: BR-STATE tab state, BR-URL tab URLs, BR-OBS observation metadata V1, BR-READ page reads
(``read_page``, ``get_page_text``, ``find``), BR-REF element refs, BR-PRIV field privacy, BR-ERR safe failures,
BR-SCOPE scoped reads, BR-DIAG diagnostics, BR-SCRIPT scripts, BR-FILE file transfers (all opt-in but the
first seven families).

Where the documents say who owns a rule only implicitly, the clause states the kit's reading: values of password
and one-time-code fields are private data a driver must not disclose; a file grant is refused either with an
outcome of ``refused``/``none`` or with ``BrowserError`` - both leave the file untouched.
"""

from __future__ import annotations

from conformance.clauses import Clause

# Section headings of "Browser and mixed Responses tools" and "Browser and desktop drivers".
_CONTRACT = "Driver contract"
_STRUCTURED = "Return a structured page read"
_RECOVERY = "Confirmation, navigation, and recovery"
_SCOPED = "Opt in to scoped reads and pointer input"
_OPT_IN = "Opt in to diagnostics, scripts, and file transfers"
_DRIVER_002 = "Browser driver contract"
_REPORT_002 = "Report structured reads"
_SECTION_002 = "Read within a section"
_FAILURES_002 = "Handle failures"
# The SDK type declarations have no headings: a section is named by the declaration it comes from.
_MEMBER_TABLE = "members"

STATE: tuple[Clause, ...] = (
    Clause(
        "BR-STATE-001",
        "000",
        _CONTRACT,
        "state() returns a dict whose tabs list holds tabs with string id, title and url and a Boolean active.",
    ),
    Clause("BR-STATE-002", "000", _CONTRACT, "No two tabs in one state report share an ID."),
    Clause("BR-STATE-003", "000", _CONTRACT, "Whenever any tab exists, exactly one tab is marked active."),
    Clause(
        "BR-STATE-004",
        "004",
        "BrowserState",
        "The active tab reports the title of the page it really shows.",
    ),
    Clause(
        "BR-STATE-005",
        "002",
        _DRIVER_002,
        "The driver shows the page its session was opened on: that page loads in the real active tab before the "
        "first call, so every later check starts from it.",
    ),
)

URLS: tuple[Clause, ...] = (
    Clause(
        "BR-URL-001",
        "002",
        _DRIVER_002,
        "A tab opened from a URL carrying user:password reports the credentials in neither its URL nor its title.",
    ),
    Clause(
        "BR-URL-002",
        "000",
        _CONTRACT,
        "An HTTP(S) tab reports a URL with the origin of the page it actually shows.",
    ),
    Clause(
        "BR-URL-003",
        "000",
        _CONTRACT,
        "With observation metadata, every tab URL is an HTTP(S) URL or exactly about:blank.",
    ),
    Clause(
        "BR-URL-004",
        "000",
        _CONTRACT,
        "A page whose path and query exceed 2,048 bytes still gets a valid state report.",
    ),
)

OBSERVATION: tuple[Clause, ...] = (
    Clause(
        "BR-OBS-001",
        "004",
        "BrowserObservationV1",
        "Observation metadata has version 1, nonnegative integer sequence and dropped_changes, a Boolean "
        "title_truncated and a list of changes.",
    ),
    Clause(
        "BR-OBS-002",
        "004",
        "BrowserStateChange",
        "Every change has a documented type with exactly that type's fields, enumerated values and tab IDs.",
    ),
    Clause(
        "BR-OBS-003",
        "004",
        "BrowserStateChange",
        "Change notices never carry URLs, page titles, dialog text or download names.",
    ),
    Clause(
        "BR-OBS-004",
        "004",
        "BrowserObservationV1",
        "Reading state consumes nothing: two reads with no activity between them report the same observation.",
    ),
    Clause(
        "BR-OBS-005",
        "004",
        "BrowserObservationV1",
        "Observation counters never decrease from one read to the next, and changes still listed stay unchanged.",
    ),
    Clause(
        "BR-OBS-006",
        "004",
        "BrowserStateChange",
        "A navigation the driver performs appears as a navigation change naming its tab.",
        "navigate",
    ),
    Clause(
        "BR-OBS-007",
        "004",
        "BrowserStateChange",
        "Opening and closing a tab appear as tab_opened and tab_closed changes naming that tab.",
        "new_tab",
    ),
    Clause(
        "BR-OBS-008",
        "000",
        _CONTRACT,
        "With observation metadata, a title over 1,024 UTF-8 bytes is cut at a character boundary to a prefix "
        "of at most 1,024 bytes and title_truncated is set.",
    ),
    Clause(
        "BR-OBS-009",
        "000",
        _CONTRACT,
        "title_truncated stays false while no reported title needed cutting.",
    ),
)

READS: tuple[Clause, ...] = (
    Clause(
        "BR-READ-001",
        "000",
        _CONTRACT,
        "read_page returns None, a string or a BrowserReadV1 dict.",
        "read_page",
    ),
    Clause(
        "BR-READ-002",
        "000",
        _CONTRACT,
        "get_page_text returns None, a string or a BrowserReadV1 dict.",
        "get_page_text",
    ),
    Clause("BR-READ-003", "000", _CONTRACT, "find returns None, a string or a BrowserReadV1 dict.", "find"),
    Clause(
        "BR-READ-004",
        "000",
        _STRUCTURED,
        "A structured read has version 1, string text, a list of elements and a list of omission codes.",
    ),
    Clause("BR-READ-005", "000", _STRUCTURED, "Element refs are unique within one read."),
    Clause(
        "BR-READ-006",
        "000",
        _STRUCTURED,
        "Every element has one of the seven roles: button, textbox, combobox, checkbox, radio, slider, listbox.",
    ),
    Clause("BR-READ-007", "000", _STRUCTURED, "Every element label is a nonempty string."),
    Clause("BR-READ-008", "002", _REPORT_002, "Refs and labels are at most 256 UTF-8 bytes."),
    Clause(
        "BR-READ-009",
        "002",
        _REPORT_002,
        "Values and option values are strings of at most 512 UTF-8 bytes; option labels are nonempty and at "
        "most 256 bytes.",
    ),
    Clause(
        "BR-READ-010",
        "004",
        "BrowserReadElement",
        "checked is reported only on checkbox and radio elements, and only as a Boolean.",
    ),
    Clause(
        "BR-READ-011",
        "004",
        "BrowserReadOption",
        "selected is reported only on options of listbox elements, and only as a Boolean.",
    ),
    Clause(
        "BR-READ-012",
        "000",
        _STRUCTURED,
        "Omission codes are unique and drawn from the documented list.",
    ),
    Clause(
        "BR-READ-013",
        "000",
        _STRUCTURED,
        "A structured get_page_text result has an empty elements list.",
        "get_page_text",
    ),
    Clause(
        "BR-READ-014",
        "002",
        _REPORT_002,
        "Read text, refs, labels and values are valid Unicode scalar values (no lone surrogates).",
    ),
    Clause(
        "BR-READ-015",
        "002",
        _REPORT_002,
        "get_page_text reports the page's visible text intact, emoji and combining marks included.",
        "get_page_text",
    ),
    Clause(
        "BR-READ-016",
        "002",
        _DRIVER_002,
        "A read that completes on a page without text returns empty text, not None.",
        "get_page_text",
    ),
    Clause(
        "BR-READ-017",
        "002",
        _REPORT_002,
        "Hidden content (display: none, hidden) appears neither in read text nor among elements.",
        "read_page",
    ),
    Clause(
        "BR-READ-018",
        "000",
        _STRUCTURED,
        "read_page reports each visible labelled control with its matching role and label, or says what it "
        "left out in omitted.",
        "read_page",
    ),
    Clause(
        "BR-READ-019",
        "004",
        "BrowserReadElement",
        "Reported values, checked states, options and selections match the live controls.",
        "read_page",
    ),
    Clause(
        "BR-READ-020",
        "004",
        _MEMBER_TABLE,
        "find reports the control whose label matches its query.",
        "find",
    ),
    Clause(
        "BR-READ-021",
        "004",
        _MEMBER_TABLE,
        "Reads are reads: read_page, get_page_text and find cause no clicks, input, keys or scrolling.",
    ),
)

REFS: tuple[Clause, ...] = (
    Clause(
        "BR-REF-001",
        "000",
        _CONTRACT,
        "Refs are stable for the current page: reading an unchanged page again gives each control the same ref.",
        "read_page",
    ),
    Clause(
        "BR-REF-002",
        "000",
        _CONTRACT,
        "A ref to a control the page has since re-rendered is rejected with BrowserError; the new control is "
        "not activated.",
    ),
    Clause(
        "BR-REF-003",
        "002",
        _REPORT_002,
        "A ref read before a navigation is rejected with BrowserError after it.",
    ),
    Clause(
        "BR-REF-004",
        "002",
        _REPORT_002,
        "A ref read in a tab that was then closed is rejected with BrowserError.",
    ),
    Clause(
        "BR-REF-005",
        "002",
        _REPORT_002,
        "A ref read in one tab is rejected with BrowserError when used on another tab.",
    ),
)

PRIVACY: tuple[Clause, ...] = (
    Clause(
        "BR-PRIV-001",
        "002",
        _REPORT_002,
        "read_page never discloses the value of a password or one-time-code field.",
        "read_page",
    ),
    Clause(
        "BR-PRIV-002",
        "002",
        _REPORT_002,
        "find never discloses the value of a password or one-time-code field.",
        "find",
    ),
    Clause(
        "BR-PRIV-003",
        "002",
        _REPORT_002,
        "get_page_text never discloses the value of a password or one-time-code field.",
        "get_page_text",
    ),
    Clause(
        "BR-PRIV-004",
        "000",
        _SCOPED,
        "read_page_scoped keeps field privacy: no private field value in any section read.",
        "read_page_scoped",
    ),
    Clause(
        "BR-PRIV-005",
        "000",
        _RECOVERY,
        "BrowserError messages never contain private field values.",
    ),
)

ERRORS: tuple[Clause, ...] = (
    Clause(
        "BR-ERR-001",
        "000",
        _RECOVERY,
        "BrowserError messages contain no page content: no page text, labels, field values or page URL.",
    ),
    Clause(
        "BR-ERR-002",
        "000",
        _RECOVERY,
        "BrowserError messages do not pass on the underlying library's exception text (tracebacks, call logs).",
    ),
    Clause(
        "BR-ERR-003",
        "002",
        _FAILURES_002,
        "After a recoverable failure the driver keeps working: the next read of the same page succeeds.",
    ),
)

SCOPED: tuple[Clause, ...] = (
    Clause(
        "BR-SCOPE-001",
        "000",
        _SCOPED,
        "read_page_scoped returns a BrowserScopedReadV1 dict with a scopes list, never a string or None.",
        "read_page_scoped",
    ),
    Clause(
        "BR-SCOPE-002",
        "000",
        _SCOPED,
        "With a null root the read discovers the page's visible labelled sections as scopes.",
        "read_page_scoped",
    ),
    Clause(
        "BR-SCOPE-003",
        "000",
        _SCOPED,
        "Scope refs and labels are nonempty and at most 256 UTF-8 bytes; scope refs are unique and never equal "
        "an element ref.",
        "read_page_scoped",
    ),
    Clause(
        "BR-SCOPE-004",
        "002",
        _SECTION_002,
        "A scope ref given as root limits the read to that section.",
        "read_page_scoped",
    ),
    Clause(
        "BR-SCOPE-005",
        "000",
        _SCOPED,
        "depth bounds DOM traversal within the root: content nested deeper is left out of the read.",
        "read_page_scoped",
    ),
    Clause(
        "BR-SCOPE-006",
        "002",
        _SECTION_002,
        "Hidden sections are not offered as scopes.",
        "read_page_scoped",
    ),
    Clause(
        "BR-SCOPE-007",
        "000",
        _SCOPED,
        "Element actions reject a scope ref with BrowserError and activate nothing.",
    ),
    Clause(
        "BR-SCOPE-008",
        "000",
        _SCOPED,
        "A root that the driver never issued as a scope ref, such as a CSS selector, is rejected with BrowserError.",
        "read_page_scoped",
    ),
    Clause(
        "BR-SCOPE-009",
        "002",
        _SECTION_002,
        "Scope refs are invalidated with their document: after a navigation the old scope ref is rejected.",
        "read_page_scoped",
    ),
    Clause(
        "BR-SCOPE-010",
        "000",
        _SCOPED,
        "Elements and omissions of a scoped read follow the BrowserReadV1 rules.",
        "read_page_scoped",
    ),
)

DIAGNOSTICS: tuple[Clause, ...] = (
    Clause(
        "BR-DIAG-001",
        "000",
        _OPT_IN,
        "read_diagnostics returns a structured read with an empty elements list, for console and network.",
        "read_diagnostics",
    ),
    Clause(
        "BR-DIAG-002",
        "000",
        _OPT_IN,
        "A diagnostic read reports no more entries than its limit.",
        "read_diagnostics",
    ),
    Clause(
        "BR-DIAG-003",
        "000",
        _OPT_IN,
        "Diagnostics never include cookie names or values.",
        "read_diagnostics",
    ),
    Clause(
        "BR-DIAG-004",
        "000",
        _OPT_IN,
        "Diagnostics never include raw request headers such as an Authorization value.",
        "read_diagnostics",
    ),
    Clause(
        "BR-DIAG-005",
        "000",
        _OPT_IN,
        "Diagnostics never include credentials carried in request URLs, such as a token query value.",
        "read_diagnostics",
    ),
    Clause(
        "BR-DIAG-006",
        "000",
        _OPT_IN,
        "Console diagnostics are filtered: secrets inside console messages are not repeated.",
        "read_diagnostics",
    ),
    Clause(
        "BR-DIAG-007",
        "004",
        _MEMBER_TABLE,
        "Console diagnostics summarize the page's console activity.",
        "read_diagnostics",
    ),
    Clause(
        "BR-DIAG-008",
        "004",
        _MEMBER_TABLE,
        "Network diagnostics summarize the page's requests.",
        "read_diagnostics",
    ),
)

SCRIPTS: tuple[Clause, ...] = (
    Clause(
        "BR-SCRIPT-001",
        "000",
        _OPT_IN,
        "A completed run_script returns a string of valid Unicode, never None.",
        "run_script",
    ),
    Clause(
        "BR-SCRIPT-002",
        "004",
        _MEMBER_TABLE,
        "run_script runs the script once, in the page shown by the requested tab.",
        "run_script",
    ),
    Clause(
        "BR-SCRIPT-003",
        "000",
        _OPT_IN,
        "run_script stops waiting once timeout_ms has passed, even if the script never settles.",
        "run_script",
    ),
    Clause(
        "BR-SCRIPT-004",
        "000",
        _RECOVERY,
        "A script that throws fails the call without passing the thrown text on in a BrowserError.",
        "run_script",
    ),
)

FILES: tuple[Clause, ...] = (
    Clause(
        "BR-FILE-001",
        "000",
        _OPT_IN,
        "A file outcome has exactly version, status, effect and cleanup, with version 1.",
    ),
    Clause(
        "BR-FILE-002",
        "000",
        _OPT_IN,
        "status and effect form a documented pair and cleanup is not_started, pending or completed.",
    ),
    Clause(
        "BR-FILE-003",
        "000",
        _OPT_IN,
        "upload_file with a valid grant completes and the page receives exactly the granted file, once.",
        "upload_file",
    ),
    Clause(
        "BR-FILE-004",
        "000",
        _OPT_IN,
        "An outcome with effect none means no transfer happened.",
    ),
    Clause(
        "BR-FILE-005",
        "000",
        _OPT_IN,
        "A grant is honoured only once: a second use is refused and transfers nothing.",
    ),
    Clause(
        "BR-FILE-006",
        "000",
        _OPT_IN,
        "A grant ID the caller never issued (including a path or URL) is refused and transfers nothing.",
    ),
    Clause(
        "BR-FILE-007",
        "000",
        _OPT_IN,
        "An expired grant is refused and transfers nothing.",
    ),
    Clause(
        "BR-FILE-008",
        "000",
        _OPT_IN,
        "An upload grant whose file exceeds its size limit is refused and uploads nothing.",
        "upload_file",
    ),
    Clause(
        "BR-FILE-009",
        "000",
        _OPT_IN,
        "A grant issued for one member (upload or download) is refused by the other.",
    ),
    Clause(
        "BR-FILE-010",
        "000",
        _OPT_IN,
        "download_file with a valid grant completes and fetches the file from the page's server.",
        "download_file",
    ),
    Clause(
        "BR-FILE-011",
        "000",
        _OPT_IN,
        "A download larger than the grant's size limit is never reported completed.",
        "download_file",
    ),
)

CLAUSES: tuple[Clause, ...] = (
    STATE + URLS + OBSERVATION + READS + REFS + PRIVACY + ERRORS + SCOPED + DIAGNOSTICS + SCRIPTS + FILES
)
