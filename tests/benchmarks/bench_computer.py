"""Reference computer driver speed, measured side by side in one run on one local desktop.

Targets (ratios, not absolute times, so a busy machine slows both sides alike):
  * screenshot through the driver <= 1.5x a raw mss grab plus PNG encode (same zlib level as the driver),
  * screenshot through the driver at least 2x faster than ``scrot`` writing a PNG file,
  * a click through the driver <= 1/3 of the latency of an ``xdotool mousemove X Y click 1`` subprocess.

Measurements are interleaved (driver, baseline, driver, ...) and summarised by the median, so a burst of load
from other processes hits both sides. Also printed, for context: raw mss at the default PNG level 6, xdotool
with ``--delay 0`` (its default adds a 100 ms sleep), and driver clicks that alternate between two points (they
include the driver's 50 ms pause before the pointer leaves a just-released button).

    .venv/bin/python tests/benchmarks/bench_computer.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import mss
import mss.tools
from openai.types.responses import computer_action as actions

from conformance.harness.desktops import DesktopSettings, LocalDesktop
from reference.computer import XvfbComputerDriver
from reference.computer.capture import DEFAULT_PNG_LEVEL

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages" / "desktop"


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _interleaved(rounds: int, contenders: dict[str, Callable[[], object]]) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            started = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - started)
    return {name: _median_ms(values) for name, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=30, help="measurements per contender (default 30)")
    arguments = parser.parse_args()
    missing = [tool for tool in ("Xvfb", "openbox", "scrot", "xdotool") if not shutil.which(tool)]
    if missing:
        print(f"bench_computer: missing tools {missing} (apt-get install xvfb openbox scrot xdotool)", file=sys.stderr)
        return 2

    with (
        LocalDesktop(DesktopSettings(site_dir=PAGES, start_path="input-recorder.html")) as desktop,
        XvfbComputerDriver(desktop.display) as driver,
        mss.MSS(display=desktop.display) as grabber,
        tempfile.TemporaryDirectory() as scratch,
    ):
        time.sleep(1.0)  # let the page finish its first paint so every contender captures the same screen
        env = {**os.environ, "DISPLAY": desktop.display}
        scrot_file = Path(scratch) / "shot.png"

        def raw_grab(level: int) -> bytes:
            shot = grabber.grab(grabber.monitors[0])
            return mss.tools.to_png(shot.rgb, shot.size, level=level) or b""

        shots = _interleaved(
            arguments.rounds,
            {
                "driver.screenshot()": driver.screenshot,
                f"raw mss grab + PNG (level {DEFAULT_PNG_LEVEL})": lambda: raw_grab(DEFAULT_PNG_LEVEL),
                "raw mss grab + PNG (level 6)": lambda: raw_grab(6),
                "scrot -o file.png": lambda: subprocess.run(["scrot", "-o", str(scrot_file)], env=env, check=True),
            },
        )

        x, y = 1000, 600
        here = actions.Click(type="click", x=x, y=y, button="left")
        there = actions.Click(type="click", x=x + 40, y=y, button="left")
        alternate = [here, there]

        def alternating_click() -> None:
            driver.click(alternate[0])
            alternate.reverse()

        # All three click at one point, so none of them pays for moving the pointer away from a release.
        clicks = _interleaved(
            arguments.rounds,
            {
                "driver.click() (same point)": lambda: driver.click(here),
                "xdotool mousemove X Y click 1": lambda: subprocess.run(
                    ["xdotool", "mousemove", str(x), str(y), "click", "1"], env=env, check=True
                ),
                "xdotool ... click --delay 0 1": lambda: subprocess.run(
                    ["xdotool", "mousemove", str(x), str(y), "click", "--delay", "0", "1"], env=env, check=True
                ),
            },
        )
        clicks.update(_interleaved(arguments.rounds, {"driver.click() (alternating points)": alternating_click}))

    print(f"median of {arguments.rounds} interleaved rounds, ms")
    for name, value in {**shots, **clicks}.items():
        print(f"  {name:<40} {value:8.2f}")
    screenshot = shots["driver.screenshot()"]
    raw = shots[f"raw mss grab + PNG (level {DEFAULT_PNG_LEVEL})"]
    scrot = shots["scrot -o file.png"]
    click = clicks["driver.click() (same point)"]
    xdotool = clicks["xdotool mousemove X Y click 1"]
    verdicts = [
        ("screenshot / raw mss+PNG", screenshot / raw, "<= 1.50", screenshot / raw <= 1.5),
        ("scrot / screenshot", scrot / screenshot, ">= 2.00", scrot / screenshot >= 2.0),
        ("click / xdotool click", click / xdotool, "<= 0.33", click / xdotool <= 1 / 3),
    ]
    print("ratios")
    for name, ratio, target, met in verdicts:
        print(f"  {name:<40} {ratio:8.2f}  target {target}  {'met' if met else 'MISSED'}")
    print("context")
    print(f"  {'click / xdotool --delay 0':<40} {click / clicks['xdotool ... click --delay 0 1']:8.2f}")
    print(f"  {'screenshot / raw mss+PNG level 6':<40} {screenshot / shots['raw mss grab + PNG (level 6)']:8.2f}")
    return 0 if all(met for *_, met in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
