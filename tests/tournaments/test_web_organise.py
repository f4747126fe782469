"""The organiser's competition pages without a browser: who may open them, a competition of every format made
through the form and stored as the API would store it, refusals on the form (never a 500), managing entrants,
starting with an order set by hand, cancelling, retrying and settling disputes, and each page's query count.

The same journeys in chromium are in tests/e2e/test_site_organise.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from league.models import Club, Membership, Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
)
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.formats.registry import all_formats, get_format
from tournaments.models import Competition, Entrant, Match, Transcript
from tournaments.services.competitions import competition_start, entrant_join
from tournaments.services.transcripts import transcript_dispute
from tournaments.web.competition_forms import new_competition_form

pytestmark = pytest.mark.django_db

COMMON_COLUMNS = (
    "players_per_match",
    "games_per_match",
    "max_entrants",
    "people_play",
    "move_seconds",
    "game_seconds",
    "live_tables_public",
    "duplicate_deals",
)


def person(club: Club, username: str, role: str = Membership.Role.MEMBER) -> Player:
    player = PlayerFactory(user=UserFactory(username=username), display_name=username.capitalize())
    MembershipFactory(club=club, player=player, role=role)
    return player


@pytest.fixture
def club() -> Club:
    return ClubFactory(name="Riverside", slug="riverside")


@pytest.fixture
def organiser(club: Club) -> Player:
    return person(club, "sam", Membership.Role.ORGANISER)


@pytest.fixture
def signed_in(client: Client, organiser: Player) -> Client:
    client.force_login(organiser.user)
    return client


def new_url(club: Club) -> str:
    return reverse("site:competition-new", args=[club.slug])


def manage_url(competition: Competition) -> str:
    return reverse("site:competition-manage", args=[competition.pk])


def form_defaults(format_key: str, game: str, club: Club) -> dict[str, Any]:
    """What step 2 posts when nothing is changed: each field's initial value as a browser sends it."""
    form = new_competition_form(get_format(format_key), game, club_id=club.pk)
    data: dict[str, Any] = {"game": game, "format": format_key, "name": f"A {format_key}"}
    for name, field in form.fields.items():
        initial = field.initial
        if name == "name" or initial is False:
            continue  # an unticked box is not sent
        data[name] = "on" if initial is True else ("" if initial is None else field.prepare_value(initial))
    return data


# --- Who may open the pages ---------------------------------------------------------------------------------


def test_a_visitor_is_sent_to_sign_in(client: Client, club: Club) -> None:
    competition = CompetitionFactory(club=club)
    for url in (new_url(club), manage_url(competition)):
        response = client.get(url)
        assert response.status_code == 302 and response.headers["Location"].startswith(reverse("site:login"))


def test_a_member_may_not_create_where_only_organisers_do(client: Client, club: Club) -> None:
    client.force_login(person(club, "meg").user)
    response = client.get(new_url(club))
    assert response.status_code == 403
    assert b"Only the organisers of Riverside create its competitions" in response.content
    response = client.post(new_url(club), {**form_defaults("round_robin", "war", club)})
    assert response.status_code == 403 and not Competition.objects.exists()


def test_a_member_creates_where_the_club_lets_members(client: Client, club: Club) -> None:
    club.competition_creators = Club.CompetitionCreators.MEMBERS
    club.save()
    meg = person(club, "meg")
    client.force_login(meg.user)
    response = client.post(new_url(club), form_defaults("round_robin", "war", club))
    competition = Competition.objects.get()
    assert response.status_code == 302 and response.headers["Location"] == manage_url(competition)
    # The creator is named among its organisers, so she manages it; another member does not.
    assert client.get(manage_url(competition)).status_code == 200
    client.force_login(person(club, "ned").user)
    assert client.get(manage_url(competition)).status_code == 403


def test_an_outsider_and_a_plain_member_get_403_from_every_manage_address(client: Client, club: Club) -> None:
    competition = CompetitionFactory(club=club)
    entrant = EntrantFactory(competition=competition)
    posts = [
        reverse("site:competition-entrant-add", args=[competition.pk]),
        reverse("site:competition-entrant-remove", args=[competition.pk, entrant.pk]),
        reverse("site:competition-start", args=[competition.pk]),
        reverse("site:competition-cancel", args=[competition.pk]),
        reverse("site:competition-retry", args=[competition.pk]),
    ]
    outsider = PlayerFactory(user=UserFactory(username="out"))
    for who in (outsider, person(club, "meg")):
        client.force_login(who.user)
        assert client.get(manage_url(competition)).status_code == 403
        assert client.get(reverse("site:competition-cancel", args=[competition.pk])).status_code == 403
        for url in posts:
            assert client.post(url, {"player": who.pk}).status_code == 403
    competition.refresh_from_db()
    assert competition.status == Competition.Status.OPEN and competition.entrants.count() == 1


# --- Creating -----------------------------------------------------------------------------------------------


def test_step_one_offers_every_game_and_every_registered_format_in_words(signed_in: Client, club: Club) -> None:
    html = signed_in.get(new_url(club)).content.decode()
    for format in all_formats():
        assert format.label in html
    assert "War" in html and "Punk" in html
    assert "round_robin" in html  # as a radio's value, never as words: see the e2e test's screenshots


def test_step_one_without_a_choice_says_so(signed_in: Client, club: Club) -> None:
    response = signed_in.get(new_url(club), {"game": "war"})
    assert response.status_code == 200 and b"Choose a game and a way to play it" in response.content


def test_every_format_is_created_through_the_form_as_the_api_would_store_it(
    signed_in: Client, club: Club, organiser: Player
) -> None:
    api = APIClient()
    api.force_authenticate(organiser.user)
    for format in all_formats():
        data = {**form_defaults(format.key, "war", club), "games_per_match": "3"}
        response = signed_in.post(new_url(club), data)
        assert response.status_code == 302, (format.key, response.content.decode()[:3000])
        made = Competition.objects.get(name=data["name"])
        body = {"club": club.pk, "name": f"API {format.key}", "game": "war", "format": format.key, "games_per_match": 3}
        answer = api.post("/api/tournaments/", body, format="json")
        assert answer.status_code == 201, answer.json()
        twin = Competition.objects.get(pk=answer.json()["id"])
        assert made.format == format.key
        assert made.settings == twin.settings
        assert made.options == twin.options
        assert [getattr(made, c) for c in COMMON_COLUMNS] == [getattr(twin, c) for c in COMMON_COLUMNS]
        assert made.games_per_match == 3 and list(made.organisers.all()) == [organiser]


def test_a_swiss_with_its_own_settings_and_a_game_s_rules(signed_in: Client, club: Club, organiser: Player) -> None:
    data = {
        **form_defaults("swiss", "1923", club),
        "round_count": "4",
        "bye_points": "draw",
        "cut_to": "4",
        "cut_format": "single_elimination",
        "rule_target_points": "50",
        "rule_mode": "set",
    }
    assert signed_in.post(new_url(club), data).status_code == 302
    made = Competition.objects.get()
    api = APIClient()
    api.force_authenticate(organiser.user)
    body = {
        "club": club.pk,
        "name": "twin",
        "game": "1923",
        "format": "swiss",
        "round_count": 4,
        "bye_points": "draw",
        "cut_to": 4,
        "cut_format": "single_elimination",
        "options": {"target_points": 50, "mode": "set"},
    }
    twin = Competition.objects.get(pk=api.post("/api/tournaments/", body, format="json").json()["id"])
    assert made.settings == twin.settings and made.options == twin.options
    assert made.settings["round_count"] == 4 and made.options["target_points"] == 50


def test_a_setting_the_format_does_not_have_cannot_be_sent(signed_in: Client, club: Club) -> None:
    data = {**form_defaults("round_robin", "war", club), "challenge_reach": "3"}
    response = signed_in.post(new_url(club), data)
    assert response.status_code == 200 and not Competition.objects.exists()
    assert "has no setting &#x27;challenge_reach&#x27;" in response.content.decode()


def test_refusals_are_messages_on_the_form_with_nothing_typed_lost(signed_in: Client, club: Club) -> None:
    data = {
        **form_defaults("swiss", "war", club),
        "name": "Thursday Swiss",
        "cut_to": "4",  # and no knockout chosen
        "move_seconds": "10 minutes",
        "game_seconds": "5 minutes",  # less than one decision's time
    }
    response = signed_in.post(new_url(club), data)
    html = response.content.decode()
    assert response.status_code == 200 and not Competition.objects.exists()
    form = response.context["form"]
    assert "Choose the knockout to cut to" in " ".join(form.errors["cut_format"])
    assert form.errors["game_seconds"] == [
        "Must be at least “Time for one decision”: a game's time holds at least one decision."
    ]
    assert 'value="Thursday Swiss"' in html and 'value="10 minutes"' in html


def test_an_engine_refusal_of_the_rules_lands_on_the_rule(signed_in: Client, club: Club) -> None:
    data = {**form_defaults("round_robin", "1923", club), "rule_decks": "24", "rule_max_sets": "300"}
    response = signed_in.post(new_url(club), data)
    assert response.status_code == 200 and not Competition.objects.exists()
    assert response.context["form"].errors == {
        "rule_max_sets": [
            "300 sets of 24 decks would deal more than the 300 decks a match may deal: at most 12 sets "
            "with 24 decks a set."
        ]
    }


def test_a_bound_is_refused_by_the_field(signed_in: Client, club: Club) -> None:
    data = {**form_defaults("challenge_ladder", "war", club), "challenge_reach": "0"}
    response = signed_in.post(new_url(club), data)
    assert response.status_code == 200 and "challenge_reach" in response.context["form"].errors


# --- Managing -----------------------------------------------------------------------------------------------


def test_an_organiser_adds_a_member_and_a_bot_and_removes_one(signed_in: Client, club: Club) -> None:
    competition = CompetitionFactory(club=club, game="war")
    meg = person(club, "meg")
    version = BotVersionFactory(bot=BotFactory(owner=meg, game="war", name="Chaser"))
    add = reverse("site:competition-entrant-add", args=[competition.pk])
    signed_in.post(add, {"player": meg.pk})
    signed_in.post(add, {"bot_version": version.pk})
    assert {e.name for e in competition.entrants.all()} == {"Meg", f"Chaser v{version.number}"}
    again = signed_in.post(add, {"player": meg.pk}, follow=True)
    assert "cannot be added" in again.content.decode()
    entrant = competition.entrants.get(player=meg)
    signed_in.post(reverse("site:competition-entrant-remove", args=[competition.pk, entrant.pk]))
    assert list(competition.entrants.values_list("name", flat=True)) == [f"Chaser v{version.number}"]


def test_a_full_competition_refuses_an_entrant_with_the_service_s_words(signed_in: Client, club: Club) -> None:
    competition = CompetitionFactory(club=club, max_entrants=2)
    EntrantFactory(competition=competition)
    EntrantFactory(competition=competition)
    page = signed_in.post(
        reverse("site:competition-entrant-add", args=[competition.pk]), {"player": person(club, "meg").pk}, follow=True
    )
    assert page.status_code == 200 and "the entrant list is full (2)" in page.content.decode()


def test_a_knockout_starts_from_the_order_set_with_up_and_down(signed_in: Client, club: Club) -> None:
    competition = CompetitionFactory(club=club, format="single_elimination")
    entrants = [EntrantFactory(competition=competition) for _ in range(4)]
    first, second, third, fourth = (e.pk for e in entrants)
    page = signed_in.get(manage_url(competition), {"order": f"{third},{first}"})
    # The order the page shows: the two it names, then the rest as they entered; Down on the first swaps it.
    assert [e.pk for e, _, _ in page.context["order"]] == [third, first, second, fourth]
    assert page.context["order"][0][2] == f"{first},{third},{second},{fourth}"
    assert page.context["order"][0][1] == ""
    response = signed_in.post(
        reverse("site:competition-start", args=[competition.pk]), {"order": f"{fourth},{third},{second},{first}"}
    )
    assert response.status_code == 302
    competition.refresh_from_db()
    assert competition.status == Competition.Status.RUNNING
    seeds = dict(Entrant.objects.filter(competition=competition).values_list("pk", "seed"))
    assert [seeds[pk] for pk in (fourth, third, second, first)] == [1, 2, 3, 4]


def test_a_start_refused_is_a_message_not_a_500(signed_in: Client, club: Club) -> None:
    competition = CompetitionFactory(club=club, format="single_elimination")
    EntrantFactory(competition=competition)
    page = signed_in.post(reverse("site:competition-start", args=[competition.pk]), follow=True)
    assert page.status_code == 200 and "needs as many entrants" in page.content.decode()
    competition.refresh_from_db()
    assert competition.status == Competition.Status.OPEN


def test_cancelling_asks_first_then_cancels(signed_in: Client, club: Club) -> None:
    competition = CompetitionFactory(club=club)
    url = reverse("site:competition-cancel", args=[competition.pk])
    assert b"This cannot be undone" in signed_in.get(url).content
    competition.refresh_from_db()
    assert competition.status == Competition.Status.OPEN
    signed_in.post(url)
    competition.refresh_from_db()
    assert competition.status == Competition.Status.CANCELLED
    again = signed_in.post(url, follow=True)
    assert "already cancelled" in again.content.decode()


def test_a_failed_match_is_tried_again(
    signed_in: Client, club: Club, sent: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    competition = CompetitionFactory(club=club)
    EntrantFactory(competition=competition)
    EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = Match.objects.get(competition=competition)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ERROR, error="bot crashed: ZeroDivisionError")
    page = signed_in.get(manage_url(competition))
    assert "bot crashed" in page.content.decode() and page.context["failed"] == [match]
    with django_capture_on_commit_callbacks(execute=True):
        signed_in.post(reverse("site:competition-retry", args=[competition.pk]), {"match": match.pk})
    match.refresh_from_db()
    assert match.status == Match.Status.PENDING and match.pk in sent
    nothing = signed_in.post(reverse("site:competition-retry", args=[competition.pk]), follow=True)
    assert "No match is waiting to be tried again" in nothing.content.decode()


def test_bots_matches_left_waiting_are_sent_again_from_the_page(
    signed_in: Client, club: Club, sent: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    competition = CompetitionFactory(club=club)
    for _ in range(4):
        EntrantFactory(competition=competition)
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=competition)
    waiting = sorted(
        Match.objects.filter(competition=competition, status=Match.Status.PENDING).values_list("pk", flat=True)
    )
    assert len(waiting) == 6 and sorted(sent) == waiting
    page = signed_in.get(manage_url(competition)).content.decode()
    assert "6 matches waiting" in page and "send them again" in page
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        done = signed_in.post(reverse("site:competition-resend", args=[competition.pk]), follow=True)
    assert "Sent 6 matches to be played again." in done.content.decode() and sorted(sent) == waiting
    Match.objects.filter(competition=competition).update(status=Match.Status.DONE, finished_at=timezone.now())
    assert "waiting-heading" not in signed_in.get(manage_url(competition)).content.decode()


def test_changing_what_may_change_and_a_refused_change_saying_why(signed_in: Client, club: Club) -> None:
    competition = CompetitionFactory(club=club, format="challenge_ladder", settings={"challenge_reach": 3})
    EntrantFactory(competition=competition)
    EntrantFactory(competition=competition)
    competition_start(competition=competition)
    page = signed_in.get(manage_url(competition))
    form = page.context["form"]
    # Running: the reach may change, the games in a match may not (shown as a fact with the reason).
    assert "challenge_reach" in form.fields and "games_per_match" not in form.fields
    fixed = dict(page.context["fixed"])
    assert ("Games in a match", "1") in fixed["Fixed once the competition started"]
    assert ("Players at a table", "2") in fixed["Chosen when the competition was created"]
    shown = form.initial["shown"]
    data = {"name": "Club ladder", "shown": shown, "challenge_reach": "5", "challenge_days": "7"}
    data["live_tables_public"] = "on"
    assert signed_in.post(manage_url(competition), data).status_code == 302
    competition.refresh_from_db()
    assert (competition.name, competition.settings["challenge_reach"]) == ("Club ladder", 5)
    # A page drawn while entries were open sends the games in a match: refused, saying why.
    stale = {**data, "shown": shown + ",games_per_match", "games_per_match": "3"}
    response = signed_in.post(manage_url(competition), stale)
    assert response.status_code == 200
    assert response.context["form"].errors["games_per_match"] == [
        "Can change only while entries are open; the competition is running."
    ]
    competition.refresh_from_db()
    assert competition.games_per_match == 1


def test_an_organiser_settles_a_dispute_between_two_transcripts(client: Client, django_assert_num_queries: Any) -> None:
    ann, ben = (PlayerFactory(user=UserFactory(username=n), display_name=n.capitalize()) for n in ("ann", "ben"))
    match, _ = transcript_match("war", players=[ann, ben])
    competition = match.competition
    sam = person(competition.club, "sam", Membership.Role.ORGANISER)
    first = Transcript.objects.create(
        match=match, number=1, submitted_by=ann, record=table_record(match), status=Transcript.Status.VERIFIED
    )
    transcript_dispute(transcript=first, player=ben, note="I won that game")
    second = Transcript.objects.create(
        match=match, number=2, submitted_by=ben, record=table_record(match, seed=9), status=Transcript.Status.VERIFIED
    )
    client.force_login(sam.user)
    page = client.get(manage_url(competition))
    html = page.content.decode()
    assert "Written down by Ann" in html and "Written down by Ben" in html and "I won that game" in html
    summaries = page.context["disputes"][0].transcripts
    assert [s.transcript.pk for s in summaries] == [first.pk, second.pk]
    assert all(line.startswith(("1st", "2nd")) for s in summaries for line in s.result)
    # The disputes read a fixed number of queries: a third version of the game costs none more.
    with django_assert_num_queries(14):
        client.get(manage_url(competition))
    Transcript.objects.create(
        match=match, number=3, submitted_by=ann, record=table_record(match, seed=3), status=Transcript.Status.VERIFIED
    )
    with django_assert_num_queries(14):
        assert len(client.get(manage_url(competition)).context["disputes"][0].transcripts) == 3
    refused = client.post(
        reverse("site:competition-settle", args=[competition.pk, second.pk, "void"]), {"note": ""}, follow=True
    )
    assert "say why the transcript is void" in refused.content.decode()
    client.post(reverse("site:competition-settle", args=[competition.pk, second.pk, "accept"]), {"note": "agreed"})
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (Transcript.Status.VOIDED, Transcript.Status.ACCEPTED)


# --- Query counts -------------------------------------------------------------------------------------------


def _manage_queries(client: Client, competition: Competition, django_assert_num_queries: Any, count: int) -> None:
    with django_assert_num_queries(count):
        assert client.get(manage_url(competition)).status_code == 200


@pytest.mark.parametrize("rows", [2, 8])
def test_the_manage_page_s_queries_do_not_grow_with_its_rows(
    signed_in: Client, club: Club, rows: int, django_assert_num_queries: Any
) -> None:
    competition = CompetitionFactory(club=club, format="single_elimination")
    for n in range(rows):
        member = person(club, f"member{n}")
        entrant_join(competition=competition, player=member)
        BotVersionFactory(bot=BotFactory(owner=member, game="war"))
        person(club, f"waiting{n}")
    _manage_queries(signed_in, competition, django_assert_num_queries, 12)


@pytest.mark.parametrize("rows", [2, 8])
def test_the_new_competition_pages_queries_are_fixed(
    signed_in: Client, club: Club, rows: int, django_assert_num_queries: Any
) -> None:
    for n in range(rows):
        CompetitionFactory(club=club, game="war", name=f"old {n}")
    with django_assert_num_queries(6):
        assert signed_in.get(new_url(club)).status_code == 200
    with django_assert_num_queries(8):
        assert signed_in.get(new_url(club), {"game": "war", "format": "single_elimination"}).status_code == 200


def test_a_running_competition_s_failed_matches_do_not_add_queries(
    signed_in: Client, club: Club, sent: list[int], django_assert_num_queries: Any
) -> None:
    competition = CompetitionFactory(club=club)
    for _ in range(6):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    Match.objects.filter(competition=competition).update(
        status=Match.Status.ERROR, error="x", finished_at=timezone.now()
    )
    _manage_queries(signed_in, competition, django_assert_num_queries, 11)  # and the matches waiting for a worker


# --- Times in words -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "seconds"),
    [("3 days", 259_200), ("1h 30m", 5_400), ("1.5 hours", 5_400), ("90 seconds", 90), ("1 hour and 5 min", 3_900)],
)
def test_a_live_table_s_clock_is_typed_in_words_and_stored_in_seconds(
    signed_in: Client, club: Club, typed: str, seconds: int
) -> None:
    data = {**form_defaults("round_robin", "war", club), "move_seconds": typed, "game_seconds": "30 days"}
    assert signed_in.post(new_url(club), data).status_code == 302
    assert Competition.objects.get().move_seconds == seconds


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("300", "Say what unit: 300 seconds, minutes, hours or days?"),
        ("3 fortnights", "“fortnights” is not a unit of time"),
        ("soon", "“soon” is not a time this form understands"),
        ("2 seconds", "Must be at least 5 seconds."),
        ("8 days", "Must be at most 7 days."),
    ],
)
def test_a_clock_the_form_cannot_read_is_refused_in_words_keeping_what_was_typed(
    signed_in: Client, club: Club, typed: str, words: str
) -> None:
    data = {**form_defaults("round_robin", "war", club), "move_seconds": typed}
    response = signed_in.post(new_url(club), data)
    assert response.status_code == 200 and not Competition.objects.exists()
    assert words in " ".join(response.context["form"].errors["move_seconds"])
    assert f'value="{typed}"' in response.content.decode()


def test_the_manage_page_shows_a_stored_clock_in_words(signed_in: Client, club: Club, organiser: Player) -> None:
    competition = CompetitionFactory(club=club, move_seconds=259_200, game_seconds=2 * 259_200)
    html = signed_in.get(manage_url(competition)).content.decode()
    assert 'value="3 days"' in html and "259200" not in html
    assert "write it in words, for example 90 seconds" in html
    # Once entries close the clocks are fixed, and said in words too.
    Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.RUNNING)
    fixed = signed_in.get(manage_url(competition)).content.decode()
    assert "6 days" in fixed and "518400" not in fixed


def test_the_rules_are_offered_in_the_game_s_words(signed_in: Client, club: Club) -> None:
    html = signed_in.get(new_url(club), {"game": "1923", "format": "round_robin"}).content.decode()
    assert "When a tie-break runs out of cards" in html and "Compare the hand cards, right to left" in html
    assert "Match target" in html and "Tiebreak exhausted" not in html and "Target points" not in html
