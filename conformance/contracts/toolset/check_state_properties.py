"""Property checks of tab state: URLs, tab IDs and titles, each fed through BOTH state forms.

The same generated value goes into legacy state (no observation metadata) and into state with observation
metadata, so a rule that holds in one form and not the other shows up. Host names mix digits and hyphens,
IPv4 and IPv6 literals, internationalized labels and upper case; ports run over the whole range, defaults
included; URLs carry credentials, paths, queries and fragments that must never be reported.

spec/000 "Driver contract" (origins without credentials, paths, queries or fragments; the legacy 2048-byte
limit on the reported value, so a long path never stops a read; observation metadata accepts HTTP(S) and
about:blank and cuts titles to 1,024 UTF-8 bytes at a character boundary, setting title_truncated; state holds
tabs with string id, title and url and Boolean active, IDs unique), as spec/004 ``BrowserState`` declares too.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conformance.assertions import expect
from conformance.contracts.toolset._toolsets import execute, function_call, gated, payload
from conformance.flavours import Flavour

OBSERVATION = {"version": 1, "sequence": 0, "dropped_changes": 0, "title_truncated": False, "changes": []}
FORMS = ("legacy", "observed")
TAB = {"id": "tab-1", "title": "Probe page", "url": "https://probe.example/", "active": True}
DEFAULT_PORTS = {"http": 80, "https": 443}
# Internationalized labels and their ASCII (IDNA) form, the form an origin is serialized in.
IDN_LABELS = {"bücher": "xn--bcher-kva", "münchen": "xn--mnchen-3ya", "пример": "xn--e1afmkfd", "例え": "xn--r8jz45g"}


def reported_state(flavour: Flavour, form: str, tabs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The state a read reports for ``tabs`` in ``form``, or None when the toolset stopped the call."""
    state: dict[str, Any] = {"tabs": tabs}
    if form == "observed":
        state["observation"] = dict(OBSERVATION)
    toolset, _ = gated(flavour, ["get_page_text"], replies={"state": state})
    try:
        output = execute(toolset, function_call("get_page_text", {"tab_id": None}))
    except Exception:
        return None
    report: dict[str, Any] = payload(output)["state"]
    return report


# ------------------------------------------------------------------------------------------ URLs

# Hyphens in a label's third and fourth places are reserved for encoded labels (xn--...): beside an
# internationalized label the whole host goes through IDNA, which refuses them, so a host with one is not a
# valid name to report (a generated "00--0" beside "bücher" failed a run).
_ldh_label = st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,12}[a-z0-9])?", fullmatch=True).filter(
    lambda label: not label.isdigit() and label[2:4] != "--"
)


@st.composite
def hosts(draw: st.DrawFn) -> tuple[str, str]:
    """A host as written in a URL and as its origin shows it (lower case, IDNA, compressed IPv6)."""
    kind = draw(st.sampled_from(["name", "idn", "ipv4", "ipv6"]))
    if kind == "ipv4":
        address = str(IPv4Address(draw(st.integers(0, 2**32 - 1))))
        return address, address
    if kind == "ipv6":
        canonical = IPv6Address(draw(st.integers(0, 2**128 - 1))).compressed
        # Written in its canonical form here; other spellings have their own check below.
        return f"[{canonical}]", f"[{canonical}]"
    labels = draw(st.lists(_ldh_label, min_size=1, max_size=3))
    if kind == "idn":
        unicode_label = draw(st.sampled_from(sorted(IDN_LABELS)))
        written = [unicode_label, *labels, "example"]
        shown = [IDN_LABELS[unicode_label], *labels, "example"]
    else:
        written = shown = [*labels, "example"]
    upper = draw(st.booleans())
    text = ".".join(written)
    return (text.upper() if upper and kind == "name" else text), ".".join(shown)


# The long path: the 2048-byte limit applies to the reported origin, so a long path never stops a state read.
_suffix = st.sampled_from(["", "/", "/account/settings", "/p?token=secret", "/#frag", "?q=1&r=2#x", "/" + "p" * 5000])


@st.composite
def urls(draw: st.DrawFn) -> tuple[str, str]:
    """An HTTP(S) URL with optional credentials, port, path, query and fragment, and its origin."""
    scheme = draw(st.sampled_from(["http", "https"]))
    written_host, shown_host = draw(hosts())
    port = draw(st.one_of(st.none(), st.sampled_from([80, 443, 8080, 8443]), st.integers(0, 65535)))
    userinfo = draw(st.sampled_from(["", "user@", "user:secret@"]))
    written = f"{scheme}://{userinfo}{written_host}{'' if port is None else f':{port}'}{draw(_suffix)}"
    shown_port = "" if port is None or port == DEFAULT_PORTS[scheme] else f":{port}"
    return written, f"{scheme}://{shown_host}{shown_port}"


@pytest.mark.clause("TS-RES-016")
@given(case=urls())
@example(case=("https://user:pw@Bücher.example:443/x?y#z", "https://xn--bcher-kva.example"))
@example(case=("http://10.0.0.1:80/", "http://10.0.0.1"))
@example(case=("https://[2001:db8::1]:8443/", "https://[2001:db8::1]:8443"))
@example(case=("https://a-1.b2-c.example:65535/p", "https://a-1.b2-c.example:65535"))
@example(case=("http://long.example/" + "p" * 5000 + "?q", "http://long.example"))
def test_both_forms_report_the_same_origin(flavour: Flavour, case: tuple[str, str]) -> None:
    url, origin = case
    for form in FORMS:
        state = reported_state(flavour, form, [{**TAB, "url": url}])
        expect(state is not None, "TS-RES-016", f"{form} state refused the HTTP(S) URL {url!r}")
        assert state is not None
        reported = state["tabs"][0]["url"]
        expect(reported == origin, "TS-RES-016", f"{form} state reported {url!r} as {reported!r}, not {origin!r}")


UNDERSCORE_HOSTS = {
    "one-label": "https://my_host.example/",
    "two-labels-port": "http://a_b.c_d.example:8080/p?q",
    "leading": "https://_dmarc.example/",
}


@pytest.mark.clause("TS-RES-016")
@pytest.mark.parametrize("host", sorted(UNDERSCORE_HOSTS))
def test_underscore_hosts_are_http_urls_in_both_forms(flavour: Flavour, host: str) -> None:
    """Underscores are allowed in URL hosts (browsers load such sites); only observation metadata could
    differ here, and the documents give it no stricter host rule than HTTP(S)."""
    url = UNDERSCORE_HOSTS[host]
    reported = {form: reported_state(flavour, form, [{**TAB, "url": url}]) for form in FORMS}
    refused = [form for form, state in reported.items() if state is None]
    expect(not refused, "TS-RES-016", f"{url!r} was refused by the {' and '.join(refused)} state form")


IP_SPELLINGS = {
    "expanded-zeros": ("https://[2001:0db8:0000:0000:0000:0000:0000:0001]:8443/", "https://[2001:db8::1]:8443"),
    "upper-case": ("http://[2001:DB8::A]/", "http://[2001:db8::a]"),
    "expanded-loopback": ("https://[0:0:0:0:0:0:0:1]/x", "https://[::1]"),
}


@pytest.mark.clause("TS-RES-016")
@pytest.mark.parametrize("spelling", sorted(IP_SPELLINGS))
def test_ip_literals_are_shown_as_their_origin_in_both_forms(flavour: Flavour, spelling: str) -> None:
    """An origin serializes an IPv6 host in its compressed, lower-case form whatever the URL spelled."""
    url, origin = IP_SPELLINGS[spelling]
    for form in FORMS:
        state = reported_state(flavour, form, [{**TAB, "url": url}])
        reported = None if state is None else state["tabs"][0]["url"]
        expect(reported == origin, "TS-RES-016", f"{form} state reported {url!r} as {reported!r}")


# ------------------------------------------------------------------------------------------ tab IDs

_tab_ids = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=40)


@pytest.mark.clause("TS-RES-017")
@given(tab_id=_tab_ids)
@example(tab_id="x")
@example(tab_id="x" * 128)
@example(tab_id="tab with spaces ✓")
def test_tab_ids_are_reported_unchanged_in_both_forms(flavour: Flavour, tab_id: str) -> None:
    for form in FORMS:
        state = reported_state(flavour, form, [{**TAB, "id": tab_id}])
        expect(state is not None, "TS-RES-017", f"{form} state refused tab ID {tab_id!r}")
        assert state is not None
        expect(state["tabs"][0]["id"] == tab_id, "TS-RES-017", f"{form} state changed tab ID {tab_id!r}")


@pytest.mark.clause("TS-RES-017")
@pytest.mark.parametrize("size", [129, 256, 1024, 4096])
def test_long_tab_ids_are_valid_in_both_forms(flavour: Flavour, size: int) -> None:
    """BrowserState gives tab IDs no length limit (unlike refs, labels and grants, which have 256 bytes)."""
    tab_id = "t" * size
    refused = [form for form in FORMS if reported_state(flavour, form, [{**TAB, "id": tab_id}]) is None]
    expect(not refused, "TS-RES-017", f"a {size}-byte tab ID was refused by the {' and '.join(refused)} form")


# ------------------------------------------------------------------------------------------ titles

TITLE_LIMIT = 1024
_titles = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=700)


def _longest_prefix(title: str, limit: int) -> str:
    cut = title
    while len(cut.encode("utf-8")) > limit:
        cut = cut[:-1]
    return cut


@pytest.mark.clause("TS-RES-013")
@given(title=_titles)
@example(title="x" * TITLE_LIMIT)
@example(title="x" * (TITLE_LIMIT - 1) + "é")
@example(title="€" * 342)
@example(title="😀" * 257)
@example(title="")
def test_titles_are_kept_or_cut_at_the_limit(flavour: Flavour, title: str) -> None:
    legacy = reported_state(flavour, "legacy", [{**TAB, "title": title}])
    expect(legacy is not None, "TS-RES-013", f"legacy state refused a {len(title.encode())}-byte title")
    assert legacy is not None
    expect(legacy["tabs"][0]["title"] == title, "TS-RES-013", "legacy state changed the title")
    observed = reported_state(flavour, "observed", [{**TAB, "title": title}])
    expect(observed is not None, "TS-RES-013", f"observed state refused a {len(title.encode())}-byte title")
    assert observed is not None
    wanted = _longest_prefix(title, TITLE_LIMIT)
    reported = observed["tabs"][0]["title"]
    expect(reported == wanted, "TS-RES-013", f"title of {len(title.encode())} bytes cut to {len(reported.encode())}")
    flagged = observed["observation"]["title_truncated"]
    expect(flagged is (wanted != title), "TS-RES-013", f"title_truncated is {flagged} for a cut={wanted != title}")
