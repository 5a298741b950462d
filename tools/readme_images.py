"""Regenerate the docs' picture of certificate.html (docs/images) from a real certification, so it shows what the
kit writes.

    .venv/bin/python -m tools.readme_images [--out docs/images]

It certifies the single-defect driver ``tests.broken.drivers:click_at_offset`` on the one pointer check it fails
(with the kit's default evidence, so the rerun's "before" picture is in it), opens the certificate offline in
Chromium, filters it to the failed clause, opens its evidence and takes the picture. Developer tooling: not in the
wheel.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from reference.browser import launch

REPOSITORY = Path(__file__).resolve().parents[1]
DRIVER = "tests.broken.drivers:click_at_offset"
CHECK = "test_click_at_uses_the_point_button_and_click_count"
WIDTH, HEIGHT = 1280, 1000


def certify(directory: Path) -> Path:
    """Certify :data:`DRIVER` on :data:`CHECK` into ``directory``; the path of its certificate.html."""
    command = [sys.executable, "-m", "pytest", f"--driver={DRIVER}", f"--certificate={directory}", "-q", "-k", CHECK]
    done = subprocess.run([*command, "-p", "no:cacheprovider"], cwd=REPOSITORY, capture_output=True, text=True)
    page = directory / "certificate.html"
    if not page.exists():
        raise SystemExit(f"the certification wrote no certificate.html:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return page


def photograph(html: Path, picture: Path) -> None:
    """Open ``html`` offline, show the failed clause's evidence, and write the top of the page to ``picture``."""
    with launch() as process:
        context = process.browser.new_context(offline=True, viewport={"width": WIDTH, "height": HEIGHT})
        try:
            page = context.new_page()
            page.goto(html.as_uri())
            page.select_option("#status-filter", "failed")
            row = page.locator("tr.clause:not(.hidden)").first
            row.locator("details.explained > summary").click()
            for image in row.locator(".evidence img").all():
                image.wait_for(state="visible")
            page.screenshot(path=str(picture), clip={"x": 0, "y": 0, "width": WIDTH, "height": HEIGHT})
        finally:
            context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPOSITORY / "docs" / "images")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        picture = args.out / "certificate-browser.png"
        photograph(certify(Path(directory)), picture)
    print(f"wrote {picture}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
