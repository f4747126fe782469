"""A knockout's bracket in chromium with the internet cut off: the admin competition page and the public page
of a single elimination of eight with a third-place match, and the admin page of a double elimination of six.
Screenshots go to var/screenshots/; tests/tournaments/test_knockout_pages.py checks the markup itself."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import pytest

from tests.e2e.test_charts import OfflineAdmin
from tests.e2e.test_ladder_pages import full_page, parts_on_a_phone
from tests.tournaments.test_knockout_pages import knockout_of_bots
from tournaments.knockout_selectors import BracketView, bracket_view

pytestmark = pytest.mark.django_db(transaction=True)


def champion_line(view: BracketView) -> str:
    place, champion = view.places[0]
    assert place == 1
    return f"{place}. ({champion.seed}) {champion.name}"


def bracket_facts(visitor: OfflineAdmin) -> dict[str, Any]:
    """What the browser laid out: round columns, side headings, the champion's line and whether it shows, and
    whether the page itself had to scroll sideways (only the bracket may)."""
    page = visitor.page
    champion = page.locator(".bracket-places li.champion")
    return {
        "columns": page.locator(".bracket > .bracket-round").count(),
        "headings": [" ".join(h.split()) for h in page.locator(".bracket-round h3").all_inner_texts()],
        "sides": page.locator(".bracket-side h4").all_inner_texts(),
        "champion": " ".join(champion.inner_text().split()),
        "champion_visible": champion.is_visible(),
        "page_wider_than_window": page.evaluate(
            "() => document.documentElement.scrollWidth > document.documentElement.clientWidth"
        ),
        "admin_links": page.locator("#bracket-section a[href*='/admin/']").count(),
    }


def scroll_to_the_last_round(visitor: OfflineAdmin) -> int:
    """Scroll the bracket right to its end; how far it went (0 when every round fits)."""
    scrolled: int = visitor.page.evaluate(
        """() => {
            const bracket = document.querySelector('.bracket');
            bracket.scrollLeft = bracket.scrollWidth;
            return bracket.scrollLeft;
        }"""
    )
    return scrolled


def test_a_single_elimination_s_bracket_reads_on_its_admin_page_and_its_public_page(
    browser: Any, live_server: Any
) -> None:
    competition = knockout_of_bots(8, nullcontext, third_place=True)
    view = bracket_view(competition)
    admin = OfflineAdmin(browser, live_server)
    admin.page.goto(f"{admin.url}/admin/tournaments/competition/{competition.pk}/change/")
    admin.page.wait_for_selector(".bracket")
    on_admin = bracket_facts(admin)
    admin.screenshot("#bracket-section", "knockout-admin-bracket.png")
    full_page(admin, "knockout-admin-page.png")
    admin.context.close()

    visitor = OfflineAdmin(browser, live_server, sign_in=False)
    visitor.page.goto(f"{visitor.url}/competitions/{competition.pk}/")
    visitor.page.wait_for_selector(".bracket")
    on_public = bracket_facts(visitor)
    full_page(visitor, "knockout-public-page.png")
    visitor.context.close()
    # At a phone's width only the bracket's rounds scroll, within the bracket, on either page.
    on_a_phone = parts_on_a_phone(browser, live_server, competition, ("bracket-section",))

    assert admin.outside == [] and admin.errors == [] and visitor.outside == [] and visitor.errors == []
    assert len(view.rounds) == 3 and view.finished
    for facts in (on_admin, on_public):
        assert facts["columns"] == 3
        assert facts["headings"] == ["Round 1", "Round 2", "Round 3"]
        assert [side.lower() for side in facts["sides"][-2:]] == ["final", "third place"]
        assert facts["champion"] == champion_line(view) and facts["champion_visible"]
        assert not facts["page_wider_than_window"]
    # Every table's match is linked on the admin page, none on the public one.
    assert on_admin["admin_links"] == sum(len(r.tables) for r in view.rounds)
    assert on_public["admin_links"] == 0
    assert on_a_phone == []


def test_a_double_elimination_s_bracket_reads_on_its_admin_page(browser: Any, live_server: Any) -> None:
    competition = knockout_of_bots(6, nullcontext, format="double_elimination")
    view = bracket_view(competition)
    admin = OfflineAdmin(browser, live_server)
    admin.page.goto(f"{admin.url}/admin/tournaments/competition/{competition.pk}/change/")
    admin.page.wait_for_selector(".bracket")
    facts = bracket_facts(admin)
    admin.screenshot("#bracket-section", "double-elimination-admin-bracket.png")
    full_page(admin, "double-elimination-admin-page.png")
    scrolled = scroll_to_the_last_round(admin)
    admin.screenshot("#bracket-section", "double-elimination-admin-bracket-end.png")
    admin.context.close()

    assert admin.outside == [] and admin.errors == []
    assert view.finished
    assert facts["columns"] == len(view.rounds) and facts["headings"][0] == "Round 1"
    sides = [side.lower() for side in facts["sides"]]
    assert "lower bracket" in sides and "grand final" in sides
    assert facts["champion"] == champion_line(view) and facts["champion_visible"]
    assert not facts["page_wider_than_window"]
    # More rounds than the admin's content is wide: the bracket scrolls, its columns keep their width.
    assert scrolled > 0


def test_a_bracket_of_sixty_four_scrolls_sideways_and_keeps_its_columns_readable(
    browser: Any, live_server: Any
) -> None:
    competition = knockout_of_bots(64, nullcontext)
    view = bracket_view(competition)
    visitor = OfflineAdmin(browser, live_server, sign_in=False)
    visitor.page.goto(f"{visitor.url}/competitions/{competition.pk}/")
    visitor.page.wait_for_selector(".bracket")
    facts = bracket_facts(visitor)
    widths = visitor.page.eval_on_selector_all(
        ".bracket > .bracket-round", "(columns) => columns.map((c) => c.getBoundingClientRect().width)"
    )
    full_page(visitor, "knockout-64-public-page.png")
    visitor.screenshot("#bracket-section", "knockout-64-public-bracket.png")
    scrolled = scroll_to_the_last_round(visitor)
    visitor.screenshot("#bracket-section", "knockout-64-public-bracket-end.png")
    visitor.context.close()

    assert visitor.outside == [] and visitor.errors == []
    assert facts["columns"] == len(view.rounds) == 6
    assert facts["champion"] == champion_line(view) and facts["champion_visible"]
    assert not facts["page_wider_than_window"] and scrolled > 0
    assert len(set(widths)) == 1 and widths[0] >= 180  # no column squashed to fit
