"""Calendars (issue 24): a person's private iCalendar feed and a club's public one, read back with the
``icalendar`` library, their address's life (made, renewed, turned off), where the address may appear, what a
feed must never show, and the feeds' query counts at two sizes.

The calendar page in a real browser is tests/e2e/test_site_calendars.py.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar, Event
from rest_framework.test import APIClient

from engine.referee import LiveGame
from league.models import Club, Membership, Player
from tests.factories import BotFactory, BotVersionFactory, CompetitionFactory
from tests.tournaments.front_support import challenge_awaiting, club, live_match, person, played_war
from tests.tournaments.hidden_support import cards_shown, secret_numbers_shown
from tests.tournaments.live_support import live_match as live_match_of
from tournaments.calendar_selectors import HISTORY_DAYS, calendar_token_of, club_calendar, person_calendar
from tournaments.models import CalendarFeed, Competition, LiveTable, Match, Round
from tournaments.services.calendar_feeds import calendar_feed_renew, calendar_feed_revoke
from tournaments.services.competitions import competition_start, entrant_join

pytestmark = pytest.mark.django_db


class Scene:
    """Riverside, run by Olga: Ann and Ben at a live Banter table, Cat and Dan at another; a finished War round
    robin of Ann, Ben and Cat; Cat challenging Ann up the club ladder; a bot tournament Ann entered only with
    her bot. Hill club has a competition of its own, which is none of Riverside's."""

    def __init__(self) -> None:
        self.river = club("Riverside", Club.Joining.OPEN)
        self.hill = club("Hill club", Club.Joining.OPEN)
        self.olga = person("olga", self.river, role=Membership.Role.ORGANISER, display_name="Olga")
        self.ann, self.ben, self.cat, self.dan = (person(name, self.river) for name in ("ann", "ben", "cat", "dan"))
        self.table = live_match(self.river, [self.ann, self.ben], name="Thursday banter")
        self.other_table = live_match(self.river, [self.cat, self.dan], name="Friday banter")
        self.war = played_war(self.river, [self.ann, self.ben, self.cat], [[1, 2], [2, 1], [1, 1]], "Autumn war")
        self.challenge = challenge_awaiting(self.river, self.olga, challenger=self.cat, defender=self.ann)
        self.bots = CompetitionFactory(club=self.river, name="Bot cup", game="war")
        entrant_join(competition=self.bots, bot_version=BotVersionFactory(bot=BotFactory(owner=self.ann, name="Ace")))
        entrant_join(competition=self.bots, bot_version=BotVersionFactory(bot=BotFactory(owner=self.dan, name="Zed")))
        competition_start(competition=self.bots)
        self.hill_cup = CompetitionFactory(club=self.hill, name="Hill cup", game="war")
        for player in (person("hal", self.hill), person("ivy", self.hill)):
            entrant_join(competition=self.hill_cup, player=player)
        competition_start(competition=self.hill_cup)


@pytest.fixture
def scene() -> Scene:
    return Scene()


def events_of(body: bytes) -> list[Event]:
    calendar = Calendar.from_ical(body)
    assert calendar.get("version") == "2.0"
    assert calendar.get("prodid")
    return list(calendar.walk("VEVENT"))


def by_uid(events: list[Event]) -> dict[str, Event]:
    uids = [str(event["uid"]) for event in events]
    assert len(uids) == len(set(uids)), "every event has its own UID"
    return {uid.split("@")[0]: event for uid, event in zip(uids, events, strict=True)}


def feed_of(player: Player, client: Client | None = None) -> bytes:
    token = calendar_token_of(player=player) or calendar_feed_renew(player=player)
    response = (client or Client()).get(f"/calendar/{token}.ics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    return bytes(response.content)


def rounds_of(*competitions: Competition) -> set[str]:
    return {f"round-{r.pk}" for c in competitions for r in c.rounds.all()}


# --- A person's feed ---------------------------------------------------------------------------------------


def test_a_persons_feed_lists_their_own_matches_challenge_and_the_rounds_of_what_they_entered(scene: Scene) -> None:
    events = by_uid(events_of(feed_of(scene.ann)))

    own_matches = {f"match-{m.pk}" for m in Match.objects.filter(participants__entrant__player=scene.ann)}
    # The Thursday table, two of Autumn war's three matches, and the challenge's match once accepted (not yet).
    assert len(own_matches) == 3
    rounds = rounds_of(scene.table.competition, scene.war, scene.bots)
    expected = own_matches | {f"challenge-{scene.challenge.pk}"} | rounds
    assert set(events) == expected
    # Not another's table, not her bot's match, not a round she has no part in (Friday's, Hill club's).
    assert f"match-{scene.other_table.pk}" not in events
    assert f"match-{Match.objects.get(competition=scene.bots).pk}" not in events
    assert not rounds_of(scene.hill_cup, scene.other_table.competition) & set(events)


def test_a_match_says_the_competition_and_the_opponents_links_to_its_table_and_starts_when_it_started(
    scene: Scene,
) -> None:
    event = by_uid(events_of(feed_of(scene.ann)))[f"match-{scene.table.pk}"]
    scene.table.refresh_from_db()
    assert str(event["summary"]) == "Thursday banter, round 1: you against Ben"
    assert str(event["url"]) == f"http://testserver/play/matches/{scene.table.pk}/"
    start = event.decoded("dtstart")
    assert isinstance(start, datetime) and start.utcoffset() == timedelta(0)
    assert start == scene.table.started_at.replace(microsecond=0)
    # Five minutes a move and an hour a game for each of two players: as long as the clocks allow.
    assert event.decoded("dtend") - start == timedelta(hours=2)
    assert "Up to 5 minutes a move and 1 hour a game" in str(event["description"])
    assert event.decoded("dtstamp")


def test_a_finished_match_ends_when_it_finished(scene: Scene) -> None:
    finished = Match.objects.filter(competition=scene.war, participants__entrant__player=scene.ann).first()
    assert finished is not None and finished.finished_at is not None
    Match.objects.filter(pk=finished.pk).update(finished_at=finished.created_at + timedelta(minutes=45))
    finished.refresh_from_db()
    assert finished.finished_at is not None
    event = by_uid(events_of(feed_of(scene.ann)))[f"match-{finished.pk}"]
    assert event.decoded("dtend") == finished.finished_at.replace(microsecond=0)
    assert str(event["summary"]).startswith("Autumn war, round ")


def test_correspondence_play_is_an_all_day_event(scene: Scene) -> None:
    Competition.objects.filter(pk=scene.table.competition_id).update(move_seconds=3 * 86400, game_seconds=10 * 86400)
    event = by_uid(events_of(feed_of(scene.ann)))[f"match-{scene.table.pk}"]
    start = event.decoded("dtstart")
    assert type(start) is date
    assert start == scene.table.started_at.date()  # type: ignore[union-attr]
    # While it is played, as long as its clocks allow: ten days for each of two players.
    assert event.decoded("dtend") - start == timedelta(days=21)
    assert "Up to 3 days a move and 10 days a game" in str(event["description"])


def test_a_match_played_with_real_cards_is_the_day_it_was_paired(scene: Scene) -> None:
    Competition.objects.filter(pk=scene.table.competition_id).update(people_play=Competition.PeoplePlay.TRANSCRIPT)
    event = by_uid(events_of(feed_of(scene.ann)))[f"match-{scene.table.pk}"]
    start = event.decoded("dtstart")
    assert type(start) is date
    assert event.decoded("dtend") - start == timedelta(days=1)
    assert "Played with real cards" in str(event["description"])


def test_a_feed_answers_a_head_request(scene: Scene) -> None:
    token = calendar_feed_renew(player=scene.ann)
    assert Client().head(f"/calendar/{token}.ics").status_code == 200
    assert Client().head(f"/clubs/{scene.river.slug}/calendar.ics").status_code == 200


def test_a_challenge_deadline_is_in_the_feed_of_both_sides_at_the_deadline(scene: Scene) -> None:
    uid = f"challenge-{scene.challenge.pk}"
    for player in (scene.ann, scene.cat):
        event = by_uid(events_of(feed_of(player)))[uid]
        assert event.decoded("dtstart") == scene.challenge.deadline.replace(microsecond=0)
        assert str(event["summary"]) == "Challenge deadline: Cat against Ann"
    assert uid not in by_uid(events_of(feed_of(scene.ben)))


def test_the_same_event_keeps_its_uid_from_one_fetch_to_the_next(scene: Scene) -> None:
    first = [str(e["uid"]) for e in events_of(feed_of(scene.ann))]
    second = [str(e["uid"]) for e in events_of(feed_of(scene.ann))]
    assert first == second
    assert all(uid.endswith("@testserver") for uid in first)


# --- The address -------------------------------------------------------------------------------------------


def test_a_new_link_replaces_the_old_one_and_a_turned_off_link_is_a_404(scene: Scene) -> None:
    client = Client()
    old = calendar_feed_renew(player=scene.ann)
    assert client.get(f"/calendar/{old}.ics").status_code == 200
    new = calendar_feed_renew(player=scene.ann)
    assert new != old
    assert client.get(f"/calendar/{old}.ics").status_code == 404
    assert client.get(f"/calendar/{new}.ics").status_code == 200
    assert calendar_feed_revoke(player=scene.ann) is True
    assert client.get(f"/calendar/{new}.ics").status_code == 404
    assert calendar_feed_revoke(player=scene.ann) is False


@pytest.mark.parametrize("token", ["nothing-here", "x" * 43, "a" * 2000, "%00", "..%2F..%2Fetc"])
def test_an_unknown_address_is_a_404(scene: Scene, token: str) -> None:
    calendar_feed_renew(player=scene.ann)
    assert Client().get(f"/calendar/{token}.ics").status_code == 404


def test_the_database_keeps_no_usable_token(scene: Scene) -> None:
    token = calendar_feed_renew(player=scene.ann)
    row = CalendarFeed.objects.get(player=scene.ann)
    assert token not in (row.nonce, row.token_hash)
    assert len(token) >= 43


def test_the_page_makes_shows_renews_and_turns_off_the_link(scene: Scene) -> None:
    client = Client()
    client.force_login(scene.ann.user)
    page = client.get("/calendar/")
    assert page.status_code == 200
    assert b"Make my calendar link" in page.content
    assert "no-store" in page["Cache-Control"] or "no-cache" in page["Cache-Control"]
    client.post("/calendar/new/")
    token = calendar_token_of(player=scene.ann)
    assert token is not None
    shown = client.get("/calendar/").content.decode()
    assert f"http://testserver/calendar/{token}.ics" in shown
    assert f"webcal://testserver/calendar/{token}.ics" in shown
    client.post("/calendar/new/")
    renewed = calendar_token_of(player=scene.ann)
    assert renewed is not None and renewed != token
    assert token not in client.get("/calendar/").content.decode()
    client.post("/calendar/off/")
    assert calendar_token_of(player=scene.ann) is None
    assert b"Make my calendar link" in client.get("/calendar/").content


def test_the_page_needs_a_sign_in_and_its_buttons_take_only_posts(scene: Scene) -> None:
    assert Client().get("/calendar/").status_code == 302
    client = Client()
    client.force_login(scene.ann.user)
    assert client.get("/calendar/new/").status_code == 405
    assert client.get("/calendar/off/").status_code == 405
    assert calendar_token_of(player=scene.ann) is None


def test_the_token_appears_on_no_page_but_its_owners_calendar_page(scene: Scene) -> None:
    token = calendar_feed_renew(player=scene.ann)
    ann = Client()
    ann.force_login(scene.ann.user)
    api = APIClient()
    api.force_authenticate(scene.ann.user)
    pages: list[tuple[Client, str]] = [
        (ann, "/"),
        (ann, "/play/"),
        (ann, f"/players/{scene.ann.user.username}/"),
        (ann, f"/clubs/{scene.river.slug}/"),
        (ann, f"/competitions/{scene.war.pk}/"),
        (ann, f"/play/matches/{scene.table.pk}/"),
        (ann, f"/clubs/{scene.river.slug}/calendar.ics"),
        (api, "/api/players/me/"),
        (api, "/api/players/me/matches/"),
        (api, f"/api/clubs/{scene.river.pk}/"),
        (Client(), "/"),
    ]
    for client, path in pages:
        response = client.get(path)
        assert response.status_code == 200, path
        assert token not in response.content.decode(), path
    # Another signed-in person's calendar page shows their own link (or none), never Ann's.
    ben = Client()
    ben.force_login(scene.ben.user)
    assert token not in ben.get("/calendar/").content.decode()
    assert token in ann.get("/calendar/").content.decode()


def test_the_dashboard_leads_to_the_calendar_page(scene: Scene) -> None:
    client = Client()
    client.force_login(scene.ann.user)
    assert reverse("site:calendar").encode() in client.get("/").content


# --- A club's feed -----------------------------------------------------------------------------------------


def test_a_clubs_feed_lists_its_competitions_starts_and_finishes_and_their_rounds(scene: Scene) -> None:
    response = Client().get(f"/clubs/{scene.river.slug}/calendar.ics")
    assert response.status_code == 200
    events = by_uid(events_of(response.content))
    river = Competition.objects.filter(club=scene.river, started_at__isnull=False)
    starts = {f"competition-{c.pk}-starts" for c in river}
    finishes = {f"competition-{c.pk}-finishes" for c in river if c.finished_at}
    assert finishes == {f"competition-{scene.war.pk}-finishes"}
    # The ladder's challenges are the members' business, not a round of the club's calendar.
    ladder = scene.challenge.competition
    assert set(events) == starts | finishes | rounds_of(*river.exclude(pk=ladder.pk))
    assert not rounds_of(scene.hill_cup) & set(events)
    war_start = events[f"competition-{scene.war.pk}-starts"]
    assert str(war_start["summary"]) == "Autumn war starts"
    assert str(war_start["url"]) == f"http://testserver/competitions/{scene.war.pk}/"


def test_a_cancelled_competition_leaves_the_clubs_feed(scene: Scene) -> None:
    Competition.objects.filter(pk=scene.bots.pk).update(status=Competition.Status.CANCELLED)
    events = by_uid(events_of(Client().get(f"/clubs/{scene.river.slug}/calendar.ics").content))
    assert f"competition-{scene.bots.pk}-starts" not in events
    assert not rounds_of(scene.bots) & set(events)


def test_an_unknown_clubs_feed_is_a_404() -> None:
    assert Client().get("/clubs/no-such-club/calendar.ics").status_code == 404


def test_the_club_page_links_its_feed_in_words_a_secretary_understands(scene: Scene) -> None:
    html = Client().get(f"/clubs/{scene.river.slug}/").content.decode()
    assert "Add the club's events to your calendar" in html
    assert 'href="webcal://testserver/clubs/riverside/calendar.ics"' in html
    assert "http://testserver/clubs/riverside/calendar.ics" in html


def test_the_club_api_gives_the_feeds_absolute_address(scene: Scene) -> None:
    response = APIClient().get(f"/api/clubs/{scene.river.pk}/")
    assert response.status_code == 200
    url = response.json()["calendar_url"]
    assert url == "http://testserver/clubs/riverside/calendar.ics"
    assert Client().get(url).status_code == 200
    listed = APIClient().get("/api/clubs/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert all(row["calendar_url"].endswith(f"/clubs/{row['slug']}/calendar.ics") for row in rows)


# --- What a feed never shows -------------------------------------------------------------------------------


def test_no_feed_shows_a_card_or_an_unfinished_matchs_seed_or_salt(scene: Scene) -> None:
    unfinished = list(Match.objects.exclude(status__in=Match.OVER).select_related("competition"))
    secret_numbers = [n for m in unfinished for n in (m.seed, m.competition.seed)]
    secret_numbers += [LiveGame.loads(t.game).seed for t in LiveTable.objects.filter(match__in=unfinished)]
    salts = [m.salt for m in unfinished if m.salt]
    assert len(unfinished) >= 3 and salts, "live tables to keep secrets of"
    feeds = [feed_of(p) for p in (scene.ann, scene.ben, scene.cat, scene.dan)]
    feeds.append(Client().get(f"/clubs/{scene.river.slug}/calendar.ics").content)
    for body in feeds:
        text = body.decode()
        assert events_of(body)
        assert cards_shown(text) == set(), cards_shown(text)
        for salt in salts:
            assert secret_numbers_shown(text, secret_numbers, salt) == []


def test_the_feeds_never_read_a_seed_or_a_salt(scene: Scene) -> None:
    """Not shown because never loaded: the selectors read only the columns an event needs."""
    token = calendar_feed_renew(player=scene.ann)
    with CaptureQueriesContext(connection) as queries:
        Client().get(f"/calendar/{token}.ics")
        Client().get(f"/clubs/{scene.river.slug}/calendar.ics")
    assert len(queries.captured_queries) >= 5
    for query in queries.captured_queries:
        assert '"seed"' not in query["sql"] and '"salt"' not in query["sql"], query["sql"]


# --- Query counts at two sizes -----------------------------------------------------------------------------


def more_history(scene: Scene, rounds: int) -> None:
    """Another War round robin of Ann and Ben, played: more matches, rounds and competitions to list."""
    for number in range(rounds):
        played_war(scene.river, [scene.ann, scene.ben], [[1, 2]], f"Extra war {number}")


def queries_of(call: Callable[[], object]) -> int:
    with CaptureQueriesContext(connection) as queries:
        call()
    return len(queries.captured_queries)


def test_the_selectors_query_counts_do_not_grow_with_the_history(scene: Scene, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(5):
        small = person_calendar(player=scene.ann)
    with django_assert_num_queries(2):
        club_small = club_calendar(club=scene.river)
    more_history(scene, 4)
    with django_assert_num_queries(5):
        big = person_calendar(player=scene.ann)
    with django_assert_num_queries(2):
        club_big = club_calendar(club=scene.river)
    assert len(big.matches) == len(small.matches) + 4
    assert len(big.rounds) == len(small.rounds) + 4
    assert len(club_big.competitions) == len(club_small.competitions) + 4


def test_the_feeds_query_counts_do_not_grow_with_the_history(scene: Scene) -> None:
    token = calendar_feed_renew(player=scene.ann)
    person_small = queries_of(lambda: Client().get(f"/calendar/{token}.ics"))
    club_small = queries_of(lambda: Client().get(f"/clubs/{scene.river.slug}/calendar.ics"))
    more_history(scene, 4)
    assert queries_of(lambda: Client().get(f"/calendar/{token}.ics")) == person_small == 6
    assert queries_of(lambda: Client().get(f"/clubs/{scene.river.slug}/calendar.ics")) == club_small == 3


def test_a_bot_at_a_persons_table_is_named_as_a_bot() -> None:
    match, (player,) = live_match_of("war", people=1, bots=1)
    bot = match.participants.exclude(entrant__player=player).get().entrant
    event = by_uid(events_of(feed_of(player)))[f"match-{match.pk}"]
    assert str(event["summary"]).endswith(f": you against {bot.name} (bot)")


def test_a_feed_keeps_what_is_not_over_and_what_ended_in_the_last_half_year(scene: Scene) -> None:
    long_ago = timezone.now() - timedelta(days=HISTORY_DAYS + 10)
    old_finished = Match.objects.filter(competition=scene.war, participants__entrant__player=scene.ann).first()
    assert old_finished is not None
    Match.objects.filter(pk__in=[old_finished.pk, scene.table.pk]).update(created_at=long_ago)
    Round.objects.filter(pk__in=[old_finished.round_id, scene.table.round_id]).update(created_at=long_ago)
    events = by_uid(events_of(feed_of(scene.ann)))
    assert f"match-{old_finished.pk}" not in events and f"round-{old_finished.round_id}" not in events
    # The live table is still being played, however long ago it was paired.
    assert f"match-{scene.table.pk}" in events and f"round-{scene.table.round_id}" in events


def test_a_feed_fetched_too_often_from_one_address_is_refused_for_a_while(scene: Scene, settings: Any) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"calendar": "2/hour"}}
    club_feed = reverse("site:club-calendar", args=[scene.river.slug])
    client = Client()
    assert [client.get(club_feed).status_code for _ in range(3)] == [200, 200, 429]
    refused = client.get(club_feed)
    assert int(refused["Retry-After"]) > 0
    assert "fetched too often" in refused.content.decode()
    # Counted per feed: the person's own feed is not held up by the club's.
    assert Client().get(reverse("site:calendar-feed", args=[calendar_feed_renew(player=scene.ann)])).status_code == 200
