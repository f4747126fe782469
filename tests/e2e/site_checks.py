"""What every page of the site must pass in chromium, at a desktop's width and a phone's (issue 23):

- it does not scroll sideways;
- axe-core (vendored by `make setup`, .ci/vendor-js) finds no serious or critical violation;
- a full-page screenshot is left in var/screenshots/ to be looked at.

The ``width`` fixture (tests/e2e/conftest.py) runs a test at both, and ``page`` is a page at that width;
``viewport(width)`` is the size to open a context of one's own at.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.conftest import WIDTHS as WIDTHS
from tests.e2e.conftest import viewport as viewport

AXE = Path(__file__).resolve().parents[2] / "var" / "vendor" / "static" / "vendor" / "axe-core" / "axe.min.js"
#: The impacts that fail a page; "minor" and "moderate" are reported by axe but left to judgement.
FAILING_IMPACTS = ("serious", "critical")


def sideways_overflow(page: Any) -> int:
    """How many pixels the page is wider than the window (0: it does not scroll sideways)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now, each with the nodes it names."""
    if not AXE.exists():
        raise AssertionError(f"axe-core is not vendored at {AXE}: run make setup")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE.read_text())
    results = page.evaluate("async () => await window.axe.run(document, {resultTypes: ['violations']})")
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [n["target"] for n in v["nodes"]][:5],
        }
        for v in results["violations"]
        if v["impact"] in FAILING_IMPACTS
    ]


def check_page(page: Any, name: str) -> None:
    """Screenshot the page as var/screenshots/<name>-<width>.png, then fail on sideways scroll or axe's findings."""
    width = page.viewport_size["width"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
    overflow = sideways_overflow(page)
    assert overflow <= 0, f"{name} at {width} px scrolls sideways by {overflow} px"
    violations = axe_violations(page)
    assert not violations, f"{name} at {width} px: axe-core finds\n{json.dumps(violations, indent=1)}"


def sign_in(page: Any, base: str, username: str, password: str = "pw") -> None:
    """Sign in through the site's own form and land on the front page (the factories' password is "pw")."""
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")
