"""The builder source of the example cassettes in ``fixtures/streams/examples/``.

Each cassette is what a model would answer in the example's task; refs in them are the ones the Fieldwork driver
issues on a fresh form (``d1-g1-<field>``: first document, first rendering). Regenerate with
``python -m tools.cassettes --write``; ``tests/tools/test_cassette_sources.py`` fails if a committed file drifts
from its source here.
"""

from __future__ import annotations

from typing import Final

from conformance.cassette_builder import CassetteBuilder, function_call, message
from reference.examples import exec_py, fieldwork, mixed, reader
from reference.examples._support import REHEARSAL_MODEL, STREAMS_DIR
from tools.cassettes.registry import SourceRegistry

EXAMPLES = SourceRegistry(STREAMS_DIR)
_source = EXAMPLES.source


def browser(member: str, call_id: str, **arguments: object) -> dict[str, object]:
    return function_call(f"browser_{member}", {**arguments, "tab_id": None}, call_id=call_id)


def ref(field: str) -> str:
    return f"d1-g1-{field}"


@_source("reader")
def _reader() -> CassetteBuilder:
    return (
        CassetteBuilder("reader", description="Read the dispatch queue, then answer from it.")
        .turn(browser("get_page_text", "read-1"))
        .turn(message("The next pickup is BP-1207 at 14:30 from Dock 4."))
        .replayable(model=REHEARSAL_MODEL, input=reader.TASK, browser_members=["get_page_text"], store=False)
    )


def _fill(reservation: dict[str, object], first_id: int) -> list[dict[str, object]]:
    ids = iter(f"fill-{n}" for n in range(first_id, first_id + 10))
    return [
        browser("type", next(ids), target=ref("guest_name"), text=reservation["guest_name"]),
        browser("type", next(ids), target=ref("date"), text=reservation["date"]),
        browser("type", next(ids), target=ref("party_size"), text=str(reservation["party_size"])),
        browser("select_option", next(ids), target=ref("time_slot"), values=[reservation["time_slot"]]),
        browser("type", next(ids), target=ref("notes"), text=reservation["notes"]),
        browser("set_checked", next(ids), target=ref("accessibility"), checked=reservation["accessibility"]),
    ]


@_source("fieldwork")
def _fieldwork() -> CassetteBuilder:
    return (
        CassetteBuilder("fieldwork", description="Read the form, fill it, confirm, read the confirmation, answer.")
        .turn(browser("read_page", "read-1", filter="interactive"))
        .turn(*_fill(fieldwork.RESERVATION, 1))
        .turn(browser("click", "confirm-1", target=ref("confirm")))
        .turn(browser("get_page_text", "read-2"))
        .turn(message("Booked: Grace Hopper, 4 guests, 24 December 2026 at 19:00, step-free access, window seat."))
        .replayable(model=REHEARSAL_MODEL, input=fieldwork.TASK, browser_members=fieldwork.MEMBERS, store=False)
    )


@_source("review")
def _review() -> CassetteBuilder:
    return (
        CassetteBuilder("review", description="Decisions: choose the review action, then done.")
        .decision("review")
        .decision("done")
    )


@_source("mixed")
def _mixed() -> CassetteBuilder:
    return (
        CassetteBuilder("mixed", description="Look up the member and availability, then book through the form.")
        .turn(
            function_call("lookup_member", {"membership": "M-2047"}, call_id="lookup-1"),
            function_call(
                "CheckAvailability", {"date": "2026-12-31", "party_size": 2, "after": "19:00"}, call_id="slots-1"
            ),
        )
        .turn(browser("read_page", "read-1", filter="interactive"))
        .turn(*_fill(mixed.RESERVATION, 1))
        .turn(browser("click", "confirm-1", target=ref("confirm")))
        .turn(message("Katherine Johnson is booked for 2 on 31 December 2026 at 19:30 with step-free access."))
        .replayable(
            model=REHEARSAL_MODEL,
            input=mixed.TASK,
            browser_members=fieldwork.MEMBERS,
            functions=[mixed.LOOKUP_TOOL.tool, mixed.AVAILABILITY_TOOL.tool],
            store=False,
        )
    )


EXEC_PY_LOOK: Final = (
    "screen = pyautogui.size()\nlog(f'screen {screen.width}x{screen.height}')\ndisplay(pyautogui.screenshot())"
)
EXEC_PY_CLICK: Final = "pyautogui.click(screen.width // 2, screen.height // 2)\nlog('clicked the centre')"


def _look_then_act(name: str, description: str, look: str, act: str, answer: str) -> CassetteBuilder:
    """Two calls of the ``name`` code tool (``exec-py`` calls ``exec_py``), the second reusing what the first kept,
    then the answer."""
    tool = name.replace("-", "_")
    return (
        CassetteBuilder(name, description=description)
        .turn(function_call(tool, {"code": look}, call_id="exec-1"))
        .turn(function_call(tool, {"code": act}, call_id="exec-2"))
        .turn(message(answer))
    )


@_source("exec-py")
def _exec_py() -> CassetteBuilder:
    return _look_then_act(
        "exec-py",
        "Look at the desktop, then click its centre reusing a variable.",
        EXEC_PY_LOOK,
        EXEC_PY_CLICK,
        "I clicked the centre of the screen.",
    ).replayable(model=REHEARSAL_MODEL, input=exec_py.TASK, functions=[exec_py.EXEC_PY_TOOL], store=False)


# exec_js: the page already shows the reservation form; the first call looks and keeps the form's fields in
# globalThis, the second fills them from that variable and confirms.
EXEC_JS_LOOK: Final = (
    "await page.waitForSelector('#reservation-form');\n"
    "globalThis.fields = await page.$$eval('[data-field]', (els) => els.map((el) => el.id));\n"
    "const [width, height] = await page.evaluate(() => [innerWidth, innerHeight]);\n"
    "console.log(`${await page.title()} at ${width}x${height}; fields: ${fields.join(', ')}`);\n"
    "display((await page.screenshot()).toString('base64'));"
)
EXEC_JS_BOOK: Final = (
    "const values = {'guest-name': 'Ada Lovelace', 'visit-date': '2026-12-10', 'party-size': '3',"
    " notes: 'Quiet table.'};\n"
    "for (const [id, value] of Object.entries(values)) {\n"
    "  if (!fields.includes(id)) throw new Error(`no field ${id}`);\n"
    "  await page.fill(`#${id}`, value);\n"
    "}\n"
    "await page.selectOption('#time-slot', '18:30');\n"
    "await page.click('#confirm');\n"
    "console.log(await page.textContent('#summary'));"
)


@_source("exec-js")
def _exec_js() -> CassetteBuilder:
    return _look_then_act(
        "exec-js",
        "Look at the form, then fill and confirm it reusing a global.",
        EXEC_JS_LOOK,
        EXEC_JS_BOOK,
        "Ada Lovelace is booked for 3 guests on 10 December 2026 at 18:30.",
    )
