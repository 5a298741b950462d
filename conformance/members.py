"""The browser member vocabulary as the documents state it.

This is the kit's own statement of the fixed member names, their argument fields, which ones change state and
which ones are opt-in, taken from spec/000 ("Driver contract", "Opt in to scoped reads and pointer input",
"Opt in to diagnostics, scripts, and file transfers") and the member table of spec/004. The SDK exports its own
tuples; the toolset suite compares them against this module, so this module must never import them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Member:
    """One fixed browser member: its wire arguments, whether it changes state, whether it is opt-in."""

    name: str
    arguments: tuple[str, ...]
    changes_state: bool
    opt_in: bool = False

    @property
    def tool_name(self) -> str:
        return f"browser_{self.name}"


def _m(name: str, arguments: tuple[str, ...], changes_state: bool, opt_in: bool = False) -> Member:
    return Member(name, arguments, changes_state, opt_in)


# Fixed order: the documents promise the SDK keeps "its fixed tool order"; spec/004 lists the members in it.
MEMBERS: Final[tuple[Member, ...]] = (
    _m("navigate", ("url", "tab_id"), True),
    _m("read_page", ("filter", "tab_id"), False),
    _m("get_page_text", ("tab_id",), False),
    _m("find", ("query", "tab_id"), False),
    _m("click", ("target", "tab_id"), True),
    _m("type", ("text", "target", "tab_id"), True),
    _m("key", ("keys", "tab_id"), True),
    _m("scroll", ("direction", "amount", "tab_id"), True),
    _m("select_option", ("target", "values", "tab_id"), True),
    _m("hover", ("target", "tab_id"), True),
    _m("screenshot", ("tab_id",), False),
    _m("zoom", ("tab_id", "region"), False),
    _m("new_tab", ("url",), True),
    _m("list_tabs", (), False),
    _m("switch_tab", ("tab_id",), True),
    _m("close_tab", ("tab_id",), True),
    _m("scroll_to", ("target", "tab_id"), True),
    _m("wait_for", ("text", "timeout_ms", "tab_id"), False),
    _m("hover_at", ("tab_id", "x", "y"), True, opt_in=True),
    _m("set_checked", ("tab_id", "target", "checked"), True, opt_in=True),
    _m("click_at", ("tab_id", "x", "y", "button", "click_count", "keys"), True, opt_in=True),
    _m("drag_path", ("tab_id", "path", "keys"), True, opt_in=True),
    _m("hold_keys", ("tab_id", "keys", "duration_ms"), True, opt_in=True),
    _m("read_page_scoped", ("tab_id", "root", "depth", "filter"), False, opt_in=True),
    # Diagnostics are a read, but the documents require confirm for them all the same.
    _m("read_diagnostics", ("tab_id", "source", "limit"), True, opt_in=True),
    _m("run_script", ("tab_id", "source", "timeout_ms"), True, opt_in=True),
    _m("upload_file", ("grant_id",), True, opt_in=True),
    _m("download_file", ("grant_id",), True, opt_in=True),
)

BY_NAME: Final[dict[str, Member]] = {member.name: member for member in MEMBERS}
ALL_NAMES: Final[tuple[str, ...]] = tuple(member.name for member in MEMBERS)
DEFAULT_NAMES: Final[tuple[str, ...]] = tuple(member.name for member in MEMBERS if not member.opt_in)
OPT_IN_NAMES: Final[tuple[str, ...]] = tuple(member.name for member in MEMBERS if member.opt_in)
# Members a driver implements as methods: list_tabs is derived from state() and never implemented.
DRIVER_METHOD_NAMES: Final[tuple[str, ...]] = tuple(name for name in ALL_NAMES if name != "list_tabs")
# Reads that need no confirmation and may be listed in confirm_reads.
READ_ONLY_NAMES: Final[tuple[str, ...]] = tuple(member.name for member in MEMBERS if not member.changes_state)
NAVIGATING_NAMES: Final[tuple[str, ...]] = ("navigate", "new_tab")

READ_ROLES: Final[tuple[str, ...]] = (
    "button",
    "textbox",
    "combobox",
    "checkbox",
    "radio",
    "slider",
    "listbox",
)
OMISSION_CODES: Final[tuple[str, ...]] = (
    "report_limit",
    "text_limit",
    "target_limit",
    "work_limit",
    "frame_limit",
    "unsupported_root",
    "unsupported_control",
    "remote_action",
    "private",
    "value",
    "name_limit",
)
MODIFIERS: Final[tuple[str, ...]] = ("Control", "Alt", "Meta", "Shift")
FILE_OUTCOME_PAIRS: Final[frozenset[tuple[str, str]]] = frozenset(
    {
        ("completed", "completed"),
        ("refused", "none"),
        ("unknown", "unknown"),
        ("interrupted", "none"),
        ("interrupted", "unknown"),
    }
)
FILE_CLEANUP_VALUES: Final[tuple[str, ...]] = ("not_started", "pending", "completed")

COMPUTER_METHODS: Final[tuple[str, ...]] = (
    "click",
    "double_click",
    "drag",
    "keypress",
    "move",
    "scroll",
    "type",
    "wait",
    "screenshot",
)

# The fields of a run checkpoint a ledger saves (Browser and desktop drivers > Stream and resume; the Node declarations'
# checkpoint type): exactly these, no more.
CHECKPOINT_FIELDS: Final = frozenset(
    {
        "version",
        "run_id",
        "revision",
        "phase",
        "max_steps",
        "consumed_requests",
        "tools",
        "output_override_names",
        "history",
        "attempted_call_ids",
        "returned_call_ids",
        "pending_items",
        "returned_outputs",
        "final_response",
    }
)
