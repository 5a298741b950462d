"""Self-contained HTML pages of the kit's results: the certificate page and the replay timeline.

Each page is one file: its stylesheet and its small script are inlined from this package's data, images are
data URLs, and a Content-Security-Policy forbids every fetch, so the page opens offline and makes no request. The
policy also runs only the page's own stylesheet and script (by their hashes): the pages show a driver's text, and a
script made of it would not run even if it slipped past escaping (conformance._safe_text).
"""

from __future__ import annotations

from conformance.html_report.certificate_page import render as render_certificate
from conformance.html_report.document import page

__all__ = ["page", "render_certificate"]
