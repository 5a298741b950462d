"""The argument schemas the Node type declarations (spec/004, ``fields`` and ``members``) give every browser member:
each argument names a field kind, and each kind has one JSON schema. Transcribed from the declarations without the
descriptions (SDK wording, not contract); where they type a bound as ``number`` it is the safe-integer maximum, the
bound the guides give coordinates and amounts."""

from __future__ import annotations

from typing import Any, Final

SAFE_MAX: Final = 2**53 - 1

FIELD_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "text": {"type": "string"},
    "optionalText": {"type": ["string", "null"]},
    "strings": {"type": "array", "items": {"type": "string"}},
    "filter": {"type": "string", "enum": ["all", "interactive"]},
    "direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
    "amount": {"type": "integer", "minimum": 0, "maximum": SAFE_MAX},
    "timeout": {"type": "integer", "minimum": 1, "maximum": 30000},
    "region": {
        "type": "array",
        "items": {"type": "integer", "minimum": 0, "maximum": SAFE_MAX},
        "minItems": 4,
        "maxItems": 4,
    },
    "coordinate": {"type": "integer", "minimum": 0, "maximum": SAFE_MAX},
    "checked": {"type": "boolean"},
    "button": {"type": "string", "enum": ["left", "right", "middle"]},
    "clickCount": {"type": "integer", "enum": [1, 2, 3]},
    "modifiers": {
        "type": "array",
        "items": {"type": "string", "enum": ["Control", "Alt", "Meta", "Shift"]},
        "minItems": 0,
        "maxItems": 4,
    },
    "path": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "x": {"type": "integer", "minimum": 0, "maximum": SAFE_MAX},
                "y": {"type": "integer", "minimum": 0, "maximum": SAFE_MAX},
            },
            "required": ["x", "y"],
            "additionalProperties": False,
        },
        "minItems": 2,
        "maxItems": 100,
    },
    "heldKeys": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 8},
    "holdDuration": {"type": "integer", "minimum": 1, "maximum": 3000},
    "scope": {"type": ["string", "null"]},
    "depth": {"type": "integer", "minimum": 1, "maximum": 32},
    "diagnosticSource": {"type": "string", "enum": ["console", "network"]},
    "diagnosticLimit": {"type": "integer", "minimum": 1, "maximum": 100},
    "script": {"type": "string"},
    "fileGrant": {"type": "string"},
    "visibleText": {"type": "string"},
}

MEMBER_FIELDS: Final[dict[str, dict[str, str]]] = {
    "navigate": {"url": "text", "tab_id": "optionalText"},
    "read_page": {"tab_id": "optionalText", "filter": "filter"},
    "read_page_scoped": {"tab_id": "optionalText", "root": "scope", "depth": "depth", "filter": "filter"},
    "read_diagnostics": {"tab_id": "optionalText", "source": "diagnosticSource", "limit": "diagnosticLimit"},
    "run_script": {"tab_id": "optionalText", "source": "script", "timeout_ms": "timeout"},
    "upload_file": {"grant_id": "fileGrant"},
    "download_file": {"grant_id": "fileGrant"},
    "get_page_text": {"tab_id": "optionalText"},
    "find": {"query": "text", "tab_id": "optionalText"},
    "click": {"target": "text", "tab_id": "optionalText"},
    "click_at": {
        "tab_id": "optionalText",
        "x": "coordinate",
        "y": "coordinate",
        "button": "button",
        "click_count": "clickCount",
        "keys": "modifiers",
    },
    "drag_path": {"tab_id": "optionalText", "path": "path", "keys": "modifiers"},
    "hold_keys": {"tab_id": "optionalText", "keys": "heldKeys", "duration_ms": "holdDuration"},
    "type": {"text": "text", "target": "optionalText", "tab_id": "optionalText"},
    "key": {"keys": "strings", "tab_id": "optionalText"},
    "scroll": {"direction": "direction", "amount": "amount", "tab_id": "optionalText"},
    "scroll_to": {"target": "text", "tab_id": "optionalText"},
    "wait_for": {"text": "visibleText", "timeout_ms": "timeout", "tab_id": "optionalText"},
    "select_option": {"target": "text", "values": "strings", "tab_id": "optionalText"},
    "hover": {"target": "text", "tab_id": "optionalText"},
    "hover_at": {"tab_id": "optionalText", "x": "coordinate", "y": "coordinate"},
    "set_checked": {"tab_id": "optionalText", "target": "text", "checked": "checked"},
    "screenshot": {"tab_id": "optionalText"},
    "zoom": {"tab_id": "optionalText", "region": "region"},
    "new_tab": {"url": "optionalText"},
    "list_tabs": {},
    "switch_tab": {"tab_id": "text"},
    "close_tab": {"tab_id": "text"},
}
