"""The wire contract of the execution service (spec/003, "Connect to your execution service").

Request: a JSON object with exactly ``session_id``, ``language`` and ``code``. Reply: ``{"output": [...]}``, a
nonempty list of ``input_text`` items and ``input_image`` items with ``detail: "original"``. Malformed requests
are answered with a message naming the problem; this module only validates, it never executes anything.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final, Literal, TypedDict

SUPPORTED_LANGUAGES: Final = ("python", "javascript")
SESSION_ID: Final = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
_FIELDS: Final = frozenset({"session_id", "language", "code"})


class TextItem(TypedDict):
    type: Literal["input_text"]
    text: str


class ImageItem(TypedDict):
    type: Literal["input_image"]
    image_url: str
    detail: Literal["original"]


OutputItem = TextItem | ImageItem


def text_item(text: str) -> TextItem:
    return {"type": "input_text", "text": text}


class RequestError(ValueError):
    """A request the service refuses; ``status`` is the HTTP status and the message is safe to return."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class ExecutionRequest:
    session_id: str
    language: str
    code: str


def parse_request(body: bytes, *, max_code_bytes: int) -> ExecutionRequest:
    """Validate a request body; every problem raises :class:`RequestError` with a message naming it."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise RequestError(400, "The request body must be a JSON object.") from None
    if not isinstance(data, dict):
        raise RequestError(400, "The request body must be a JSON object.")
    missing = sorted(_FIELDS - data.keys())
    if missing:
        raise RequestError(400, f"Missing field(s): {', '.join(missing)}.")
    extra = sorted(data.keys() - _FIELDS)
    if extra:
        raise RequestError(400, f"Unexpected field(s): {', '.join(extra)}.")
    session_id, language, code = data["session_id"], data["language"], data["code"]
    if not isinstance(session_id, str) or not SESSION_ID.fullmatch(session_id):
        raise RequestError(400, "session_id must be 1-128 characters of letters, digits, '_', '.', ':' or '-'.")
    if not isinstance(language, str):
        raise RequestError(400, "language must be a string.")
    if language not in SUPPORTED_LANGUAGES:
        shown = language if len(language) <= 40 else language[:40] + "..."
        raise RequestError(400, f"Unsupported language {shown!r}; this service runs: {', '.join(SUPPORTED_LANGUAGES)}.")
    if not isinstance(code, str) or not code.strip():
        raise RequestError(400, "code must be a nonempty string.")
    if len(code.encode("utf-8", "surrogatepass")) > max_code_bytes:
        raise RequestError(400, f"code is larger than {max_code_bytes} bytes.")
    return ExecutionRequest(session_id, language, code)


def validate_output(value: object) -> list[OutputItem]:
    """Check a service reply's ``output`` the way a careful client must; raises ValueError naming the problem."""
    if not isinstance(value, list) or not value:
        raise ValueError("The execution service returned no output items.")
    items: list[OutputItem] = []
    for position, item in enumerate(value):
        if not isinstance(item, dict):
            raise ValueError(f"Output item {position} is not an object.")
        if item.get("type") == "input_text" and isinstance(item.get("text"), str) and len(item) == 2:
            items.append({"type": "input_text", "text": item["text"]})
        elif (
            item.get("type") == "input_image"
            and isinstance(item.get("image_url"), str)
            and item.get("detail") == "original"
            and len(item) == 3
        ):
            items.append({"type": "input_image", "image_url": item["image_url"], "detail": "original"})
        else:
            raise ValueError(f"Output item {position} is neither input_text nor an input_image with original detail.")
    return items
