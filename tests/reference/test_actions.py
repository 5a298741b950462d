"""Element actions produce real (trusted) input on exactly the referenced control, and refs stay honest."""

from __future__ import annotations

import pytest
from openai.lib.browser import BrowserCancelledError, BrowserError
from rdk_helpers import element, read

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def test_click_lands_once_on_the_referenced_control_with_trusted_input(open_driver, env) -> None:
    driver = open_driver("forms.html")
    save = element(read(driver), "Save preferences")
    assert driver.click({"target": save["ref"], "tab_id": None}) == "Clicked."
    click = env.wait_for_effect("click")
    assert click["target"] == "save" and click["trusted"] is True
    driver.state()  # a later call; the click must not repeat
    assert len(env.effects("click")) == 1


def test_type_replaces_the_value_of_the_referenced_field(open_driver, env) -> None:
    driver = open_driver("forms.html")
    recipient = element(read(driver), "Recipient name")
    driver.type({"target": recipient["ref"], "text": "Grace Hopper", "tab_id": None})
    assert element(read(driver), "Recipient name")["value"] == "Grace Hopper"


def test_select_option_and_set_checked(open_driver, env) -> None:
    driver = open_driver("forms.html")
    report = read(driver)
    driver.select_option({"target": element(report, "Delivery city")["ref"], "values": ["ber"], "tab_id": None})
    leave = element(report, "Leave at door")["ref"]
    assert driver.set_checked({"target": leave, "checked": True, "tab_id": None}) == "Checked."
    assert driver.set_checked({"target": leave, "checked": True, "tab_id": None}) == "Already checked."
    after = read(driver)
    assert element(after, "Delivery city")["value"] == "ber"
    assert element(after, "Leave at door")["checked"] is True
    with pytest.raises(BrowserError):
        driver.set_checked({"target": element(report, "Save preferences")["ref"], "checked": True, "tab_id": None})


def test_refs_are_stable_within_a_document_and_stale_after_rerender(open_driver, env) -> None:
    driver = open_driver("rerender.html")
    first = read(driver)
    assert element(read(driver), "Confirm order")["ref"] == element(first, "Confirm order")["ref"]
    driver.click({"target": element(first, "Rebuild controls")["ref"], "tab_id": None})
    env.wait_for_effect("rerender")
    with pytest.raises(BrowserError) as refused:
        driver.click({"target": element(first, "Confirm order")["ref"], "tab_id": None})
    assert "Confirm" not in str(refused.value)  # the message carries no page content
    assert not [effect for effect in env.effects("click") if str(effect.get("target", "")).startswith("confirm")]


def test_unknown_and_scope_refs_are_refused_without_effect(open_driver, env) -> None:
    driver = open_driver("sections.html")
    scoped = driver.read_page_scoped({"root": None, "depth": 4, "filter": "all", "tab_id": None})
    assert scoped["scopes"], "the sections page has landmarks"
    with pytest.raises(BrowserError, match="section"):
        driver.click({"target": scoped["scopes"][0]["ref"], "tab_id": None})
    with pytest.raises(BrowserError):
        driver.click({"target": "made-up-ref", "tab_id": None})
    inner = driver.read_page_scoped({"root": scoped["scopes"][0]["ref"], "depth": 8, "filter": "all", "tab_id": None})
    refs = {item["ref"] for item in inner["elements"]}
    assert not refs & {scope["ref"] for scope in inner["scopes"]}
    assert not [effect for effect in env.effects("click") if effect.get("page") == "sections.html"]


def test_bound_targets_hide_key_and_refuse_untargeted_typing(open_driver, env) -> None:
    driver = open_driver("forms.html", bind_targets=True)
    assert getattr(driver, "key", None) is None
    with pytest.raises(BrowserError):
        driver.type({"target": None, "text": "typed at focus", "tab_id": None})
    assert not env.effects("input")
    assert callable(getattr(open_driver("forms.html"), "key", None))


def test_key_presses_a_combination_in_the_focused_control(open_driver, env) -> None:
    driver = open_driver("forms.html")
    notes = element(read(driver), "Courier notes")
    driver.type({"target": notes["ref"], "text": "abc", "tab_id": None})
    driver.key({"keys": ["Control", "a"], "tab_id": None})
    driver.key({"keys": ["Backspace"], "tab_id": None})
    assert element(read(driver), "Courier notes")["value"] == ""
    with pytest.raises(BrowserError):
        driver.key({"keys": ["NoSuchKey"], "tab_id": None})


def test_scroll_moves_the_page_in_the_requested_direction(open_driver, env) -> None:
    driver = open_driver("gen/huge.html?nodes=4000")
    driver.scroll({"direction": "down", "amount": 3, "tab_id": None})
    down = driver.run_script({"source": "scrollY", "timeout_ms": 1000, "tab_id": None})
    driver.scroll({"direction": "up", "amount": 1, "tab_id": None})
    up = driver.run_script({"source": "scrollY", "timeout_ms": 1000, "tab_id": None})
    assert 0 < int(up) < int(down)


def test_cancelled_before_start_has_no_effect(open_driver, env) -> None:
    driver = open_driver("forms.html")
    save = element(read(driver), "Save preferences")
    with pytest.raises(BrowserCancelledError):
        driver.click({"target": save["ref"], "tab_id": None}, cancelled=lambda: True)
    driver.state()
    assert not env.effects("click")
