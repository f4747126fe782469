"""The club journeys in chromium, at a desktop's width and a phone's (issue 23), through pages only, with the
effects checked through the API:

- a member finds an open club on /clubs/, joins it, and leaves it again;
- a visitor opens an invitation link, signs up, lands back on the link and joins with one click;
- an organiser without staff rights starts a club, makes an invitation link and copies it, gives a member a
  role, and decides a join request another person sent with a note.

Every page and state is checked by check_page (no sideways scroll, no serious axe finding, a screenshot).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from league.joining import invitation_create
from league.models import Club, Membership, Player
from tests.e2e.site_checks import WIDTHS, check_page, viewport
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.league.test_api_support import client_for, results

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
BrowserContext = playwright_sync.BrowserContext
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "pw"


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def context(request: pytest.FixtureRequest, browser: Browser, live_server: Any) -> Iterator[BrowserContext]:
    made = browser.new_context(viewport=viewport(request.param))
    yield made
    made.close()


def person(username: str) -> Player:
    return PlayerFactory(user=UserFactory(username=username), display_name=username.capitalize())


def sign_in(page: Page, base: str, username: str, then: str) -> None:
    page.goto(f"{base}/accounts/login/?next={then}")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}{then}")


def member_names(club: Club) -> dict[str, str]:
    """The club's roll as the API lists it: display name → role."""
    return {
        row["player"]["display_name"]: row["role"]
        for row in results(client_for().get(f"/api/clubs/{club.pk}/members/"))
    }


def main(page: Page) -> Any:
    return page.locator("#main")


def test_a_member_finds_an_open_club_joins_and_leaves(context: BrowserContext, live_server: Any) -> None:
    base = str(live_server.url)
    club = ClubFactory(name="Riverside Whist", slug="riverside", joining=Club.Joining.OPEN)
    MembershipFactory(club=club, player=person("olga"), role=Membership.Role.ORGANISER)
    ClubFactory(name="Hilltop Cards", slug="hilltop", joining=Club.Joining.REQUEST)
    person("mia")
    page = context.new_page()
    sign_in(page, base, "mia", "/clubs/")
    assert main(page).get_by_text("Anyone can join · 1 member").is_visible()
    assert main(page).get_by_text("Ask to join · 0 members").is_visible()
    check_page(page, "clubs-list")

    main(page).get_by_role("link", name="Riverside Whist").click()
    page.wait_for_url(f"{base}/clubs/riverside/")
    check_page(page, "club-open-outsider")
    main(page).get_by_role("button", name="Join Riverside Whist").click()
    page.get_by_role("status").get_by_text("Welcome to Riverside Whist: you are a member.").wait_for()
    assert main(page).get_by_text("You are a member of Riverside Whist.").is_visible()
    check_page(page, "club-joined")
    assert member_names(club) == {"Olga": "organiser", "Mia": "member"}

    main(page).get_by_role("link", name="Leave the club").click()
    page.wait_for_url(f"{base}/clubs/riverside/leave/")
    check_page(page, "club-leave-confirm")
    main(page).get_by_role("button", name="Leave Riverside Whist").click()
    page.get_by_role("status").get_by_text("You have left Riverside Whist.").wait_for()
    assert member_names(club) == {"Olga": "organiser"}


def test_a_visitor_signs_up_from_an_invitation_link_and_joins(context: BrowserContext, live_server: Any) -> None:
    base = str(live_server.url)
    club = ClubFactory(name="Harbour Bridge Club", slug="harbour", joining=Club.Joining.INVITATION)
    olga = person("olga")
    MembershipFactory(club=club, player=olga, role=Membership.Role.ORGANISER)
    code = invitation_create(club=club, created_by=olga, max_uses=3).code
    link = f"/invitations/{code}/"
    page = context.new_page()
    page.goto(f"{base}{link}")
    assert main(page).get_by_text("You are invited to join").is_visible()
    check_page(page, "invitation-visitor")

    main(page).get_by_role("link", name="Sign up to join").click()
    page.wait_for_url(f"{base}/accounts/signup/?next=%2Finvitations%2F{code}%2F")
    page.get_by_label("User name").fill("nell")
    page.get_by_label("Display name (optional)").fill("Nell")
    page.get_by_label("Password").fill("quiet-harbour-lantern-42")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(f"{base}{link}")  # back on the link, signed in
    check_page(page, "invitation-signed-in")
    main(page).get_by_role("button", name="Join Harbour Bridge Club").click()
    page.wait_for_url(f"{base}/clubs/harbour/")
    page.get_by_role("status").get_by_text("Welcome to Harbour Bridge Club: you are a member.").wait_for()
    check_page(page, "club-joined-by-link")
    assert member_names(club) == {"Olga": "organiser", "Nell": "member"}
    invitation = client_for(olga.user).get(f"/api/clubs/{club.pk}/invitations/")
    assert [(row["uses"], row["max_uses"]) for row in results(invitation)] == [(1, 3)]

    # The link again, now a member: it says so rather than offering to join twice.
    page.goto(f"{base}{link}")
    assert main(page).get_by_text("You are already a member of Harbour Bridge Club.").is_visible()
    check_page(page, "invitation-member")

    # Signed out, the club's page tells a visitor it takes members by invitation only.
    page.get_by_role("button", name="Sign out").click()
    page.goto(f"{base}/clubs/harbour/")
    main(page).get_by_text("you need an invitation link from one of its organisers").wait_for()
    assert main(page).get_by_role("button").count() == 0
    check_page(page, "club-visitor-invitation-only")


def test_an_organiser_without_staff_starts_a_club_invites_and_decides_a_request(
    context: BrowserContext, browser: Browser, live_server: Any
) -> None:
    base = str(live_server.url)
    olga, nia = person("olga"), person("nia")
    assert not olga.user.is_staff
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    sign_in(page, base, "olga", "/clubs/")
    main(page).get_by_role("link", name="Start a club").click()
    page.wait_for_url(f"{base}/clubs/new/")
    check_page(page, "club-new")

    page.get_by_label("Club name").fill("Lantern Euchre")
    page.get_by_label("Web address").fill("new")
    page.get_by_label("People ask to join, and an organiser accepts or declines").check()
    page.get_by_role("button", name="Start the club").click()
    main(page).get_by_text("'new' is kept for the site's own pages: choose another").wait_for()
    check_page(page, "club-new-refused")
    page.get_by_label("Web address").fill("lantern")
    page.get_by_role("button", name="Start the club").click()
    page.wait_for_url(f"{base}/clubs/lantern/")
    assert main(page).get_by_text("You are an organiser of Lantern Euchre.").is_visible()
    check_page(page, "club-organiser")
    club = Club.objects.get(slug="lantern")
    assert client_for().get(f"/api/clubs/{club.pk}/").json()["joining"] == "request"

    # An invitation link, made and copied.
    main(page).get_by_role("link", name="Invitations").click()
    page.wait_for_url(f"{base}/clubs/lantern/invitations/")
    page.get_by_label("How many people may use it").fill("5")
    page.get_by_label("Days it lasts").fill("0")
    page.get_by_role("button", name="Make a link").click()
    main(page).get_by_text("Ensure this value is greater than or equal to 1.").wait_for()
    check_page(page, "club-invitations-refused")
    page.get_by_label("Days it lasts").fill("10")
    page.get_by_role("button", name="Make a link").click()
    page.get_by_role("button", name="Copy link 1").wait_for()
    made = results(client_for(olga.user).get(f"/api/clubs/{club.pk}/invitations/"))
    assert [(row["max_uses"], row["uses"]) for row in made] == [(5, 0)]
    field = page.get_by_label("Link 1: people join as members")
    assert field.input_value() == f"{base}/invitations/{made[0]['code']}/"
    page.get_by_role("button", name="Copy link 1").click()
    main(page).get_by_text("Copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == field.input_value()
    check_page(page, "club-invitations")

    # Nia asks to join with a note, in a browser of her own.
    other = browser.new_context(viewport=page.viewport_size)
    try:
        asking = other.new_page()
        sign_in(asking, base, "nia", "/clubs/lantern/")
        asking.get_by_label("A note for the organisers (optional)").fill("Ben from the Tuesday table sent me.")
        check_page(asking, "club-request-outsider")
        asking.get_by_role("button", name="Ask to join").click()
        asking.locator("#main").get_by_text("Your request is waiting for an organiser.").wait_for()
        check_page(asking, "club-request-waiting")
    finally:
        other.close()

    page.goto(f"{base}/clubs/lantern/")
    assert main(page).get_by_text("1 waiting").is_visible()
    main(page).get_by_role("link", name="Join requests").click()
    page.wait_for_url(f"{base}/clubs/lantern/requests/")
    assert main(page).get_by_text("Ben from the Tuesday table sent me.").is_visible()
    check_page(page, "club-requests")
    main(page).get_by_role("button", name="Accept Nia").click()
    page.get_by_role("status").get_by_text("Nia is now a member.").wait_for()
    assert main(page).get_by_text("No one is waiting for an answer.").is_visible()
    assert member_names(club) == {"Olga": "organiser", "Nia": "member"}

    # Nia becomes a referee on the members page.
    main(page).get_by_role("navigation", name="Running the club").get_by_role("link", name="Members").click()
    page.wait_for_url(f"{base}/clubs/lantern/members/")
    page.get_by_label("Role of Nia").select_option("referee")
    main(page).get_by_role("listitem").filter(has_text="Nia").get_by_role("button", name="Change role").click()
    page.get_by_role("status").get_by_text("Nia is now a referee.").wait_for()
    check_page(page, "club-members")
    assert member_names(club) == {"Olga": "organiser", "Nia": "referee"}
    main(page).get_by_role("listitem").filter(has_text="Nia").get_by_role("link", name="Remove").click()
    main(page).get_by_role("heading", name="Remove Nia from Lantern Euchre?").wait_for()
    check_page(page, "club-remove-member")
    main(page).get_by_role("link", name="Keep them").click()
    page.wait_for_url(f"{base}/clubs/lantern/members/")
    assert member_names(club) == {"Olga": "organiser", "Nia": "referee"}

    main(page).get_by_role("link", name="Settings").click()
    page.wait_for_url(f"{base}/clubs/lantern/settings/")
    check_page(page, "club-settings")
    olga.user.refresh_from_db()
    assert olga.user.is_staff  # the role opened the admin site
    assert nia.pk in [m.player_id for m in Membership.objects.filter(club=club)]


def test_an_organiser_invites_a_person_by_name_who_accepts_and_a_withdrawn_link_explains_itself(
    context: BrowserContext, browser: Browser, live_server: Any
) -> None:
    base = str(live_server.url)
    club = ClubFactory(name="Quiet Hearts", slug="hearts", joining=Club.Joining.INVITATION)
    olga = person("olga")
    MembershipFactory(club=club, player=olga, role=Membership.Role.ORGANISER)
    nia = person("nia")
    page = context.new_page()
    sign_in(page, base, "olga", "/clubs/hearts/invitations/")
    page.get_by_label("Their user name").fill("nobody")
    page.get_by_role("button", name="Invite them").click()
    main(page).get_by_text("No one here has the user name 'nobody'.").wait_for()
    check_page(page, "club-invite-person-refused")
    page.get_by_label("Their user name").fill("nia")
    page.get_by_label("Invite them as").select_option("referee")
    page.get_by_role("button", name="Invite them").click()
    main(page).get_by_role("button", name="Withdraw the invitation to Nia").wait_for()
    page.get_by_role("button", name="Make a link").click()
    page.get_by_role("button", name="Withdraw link 1").click()
    page.get_by_role("status").get_by_text("The link is withdrawn: it admits no one now.").wait_for()
    check_page(page, "club-invitations-after")
    offers = results(client_for(nia.user).get("/api/players/me/invitations/"))
    assert [(row["role"], row["status"]) for row in offers] == [("referee", "pending")]
    withdrawn = results(client_for(olga.user).get(f"/api/clubs/{club.pk}/invitations/"))[0]
    assert withdrawn["usable"] is False

    other = browser.new_context(viewport=page.viewport_size)
    try:
        invited = other.new_page()
        sign_in(invited, base, "nia", "/clubs/hearts/")
        invited.locator("#main").get_by_text("Olga invites you to join Quiet Hearts as a referee.").wait_for()
        check_page(invited, "club-personal-invitation")
        invited.locator("#main").get_by_role("button", name="Accept").click()
        invited.get_by_role("status").get_by_text("Welcome to Quiet Hearts: you are a member.").wait_for()
        assert invited.locator("#main").get_by_text("You are a referee of Quiet Hearts.").is_visible()
        assert member_names(club) == {"Olga": "organiser", "Nia": "referee"}

        invited.goto(f"{base}/invitations/{withdrawn['code']}/")
        invited.locator("#main").get_by_text("You are already a member of Quiet Hearts.").wait_for()
    finally:
        other.close()

    # Someone else opening the withdrawn link is told why it admits no one, and what to do.
    stranger = browser.new_context(viewport=page.viewport_size)
    try:
        visitor = stranger.new_page()
        visitor.goto(f"{base}/invitations/{withdrawn['code']}/")
        visitor.locator("#main").get_by_text("this invitation was withdrawn by the club's organisers").wait_for()
        assert visitor.locator("#main").get_by_role("link", name="Sign up to join").count() == 0
        check_page(visitor, "invitation-withdrawn")
    finally:
        stranger.close()
