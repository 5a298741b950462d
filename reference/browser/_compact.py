"""A compact text rendering of a page read, for apps that prefer fewer input tokens to structured reports.

spec/000 "Driver contract": ``read_page``, ``get_page_text`` and ``find`` may return a string instead of
``BrowserReadV1``. This rendering carries the same refs, roles, labels, permitted values and omission codes, one
control per line in the style of an accessibility snapshot, so it is about as small as Playwright's
``aria_snapshot()`` of the same page. The SDK does not parse strings, so the model reads it as text.
"""

from __future__ import annotations

import json

from openai.lib.browser import BrowserReadV1


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def compact_report(report: BrowserReadV1) -> str:
    lines = [report["text"]] if report["text"] else []
    for element in report["elements"]:
        line = f"[{element['ref']}] {element['role']} {_quoted(element['label'])}"
        if "value" in element:
            line += f" = {_quoted(element['value'])}"
        if "checked" in element:
            line += " (checked)" if element["checked"] else " (unchecked)"
        options = element.get("options")
        if options:
            rendered = []
            for option in options:
                item = option["label"] if option["label"] == option["value"] else f"{option['label']}={option['value']}"
                rendered.append(item + (" *" if option.get("selected") else ""))
            line += " options: " + " | ".join(rendered)
        lines.append(line)
    if report["omitted"]:
        lines.append("omitted: " + ", ".join(report["omitted"]))
    return "\n".join(lines)
