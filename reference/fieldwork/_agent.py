"""The bridge between the Fieldwork driver and its page-side agent (``fieldwork_agent.js``).

Both driver flavours send the same requests and turn the same answers into reports, so everything that does not
touch Playwright lives here: the agent source, the mapping from agent error codes to messages safe for the model,
and the assembly of ``BrowserReadV1`` reports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Final, cast

from openai.lib.browser import BrowserError, BrowserReadElement, BrowserReadV1

# Which roles each action accepts: a ref to the wrong kind of control is refused before anything happens.
CLICKABLE: Final = ("button", "checkbox")
TYPABLE: Final = ("textbox",)
SELECTABLE: Final = ("combobox",)
CHECKABLE: Final = ("checkbox",)

# Messages chosen here, never taken from page content or exception text (spec/000, "Confirmation, navigation,
# and recovery": a driver picks its own safe BrowserError wording).
_MESSAGES: Final[Mapping[str, str]] = {
    "not_fieldwork": "Fieldwork works only on its own reservation form.",
    "unknown_ref": "That ref was not issued by a Fieldwork read.",
    "stale_ref": "That control is from an earlier rendering of the form; read the page again.",
    "hidden": "That control is not visible now; read the page again.",
    "wrong_role": "That control does not support this action.",
    "disabled": "That control is disabled.",
    "unknown_op": "The Fieldwork driver sent an unknown request.",
}


@cache
def agent_source() -> str:
    return (Path(__file__).with_name("fieldwork_agent.js")).read_text(encoding="utf-8")


def refusal(code: object) -> BrowserError:
    """A BrowserError for an agent error code (an unknown code still gets a fixed message)."""
    return BrowserError(_MESSAGES.get(str(code), "The form refused that action."))


def read_request(document: int, *, values: bool) -> dict[str, object]:
    return {"op": "read", "document": document, "values": values}


def resolve_request(ref: str, roles: Sequence[str]) -> dict[str, object]:
    return {"op": "resolve", "ref": ref, "roles": list(roles)}


def answer(raw: object) -> Mapping[str, object]:
    """The agent's answer as a mapping; an error code becomes the matching BrowserError."""
    if not isinstance(raw, Mapping):
        raise BrowserError("The form did not answer the read.")
    answer = cast(Mapping[str, object], raw)
    if "error" in answer:
        raise refusal(answer["error"])
    return answer


def structured_read(answer: Mapping[str, object], *, filter: str) -> BrowserReadV1:
    """A ``BrowserReadV1`` from a read answer. ``interactive`` keeps the controls and drops the prose."""
    elements = cast(list[BrowserReadElement], list(cast(Sequence[object], answer.get("elements") or [])))
    interactive = filter == "interactive"
    text = "" if interactive else str(answer.get("text") or "")
    report: BrowserReadV1 = {"version": 1, "text": text, "elements": elements, "omitted": []}
    if answer.get("cut") and not interactive:
        report["omitted"] = ["text_limit"]
    return report


def text_read(answer: Mapping[str, object]) -> BrowserReadV1:
    """A ``get_page_text`` report: text only, with an empty element list as the contract requires."""
    report: BrowserReadV1 = {"version": 1, "text": str(answer.get("text") or ""), "elements": [], "omitted": []}
    if answer.get("cut"):
        report["omitted"] = ["text_limit"]
    return report


def found(report: BrowserReadV1, query: str) -> BrowserReadV1:
    """The part of a full read that matches ``query`` (case-insensitive): matching controls and sentences."""
    needle = " ".join(query.split()).casefold()
    if not needle:
        raise BrowserError("The search text is empty.")
    elements = [element for element in report["elements"] if needle in element["label"].casefold()]
    sentences = [part.strip() for part in report["text"].replace("\n", " ").split(". ") if needle in part.casefold()]
    return {"version": 1, "text": ". ".join(sentences), "elements": elements, "omitted": list(report["omitted"])}


def check_entry(input_type: object, text: str) -> None:
    """Refuse text a typed field would silently drop (a browser clears a date input given a non-date)."""
    if input_type == "date" and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise BrowserError("Dates must be written as YYYY-MM-DD.")
    if input_type == "number" and not re.fullmatch(r"-?\d+", text.strip()):
        raise BrowserError("This field takes a whole number.")


def choose_option(answer_options: object, values: Sequence[str]) -> str:
    """The option value to select for a single-choice control, matching a value or a visible label."""
    if len(values) != 1:
        raise BrowserError("Choose exactly one option for this control.")
    wanted = values[0]
    for option in cast(Sequence[Mapping[str, object]], answer_options or []):
        if wanted in (option.get("value"), option.get("label")):
            return str(option.get("value"))
    raise BrowserError("That option is not offered by this control.")
