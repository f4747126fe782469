"""The ladders in the admin site and on the public page (issue 13, "the ladder's history ... in the admin site"):
a challenge ladder's places and history, the read-only Challenge admin, a rating ladder's progress and
standings by rating, and their rating charts against time."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from html.parser import HTMLParser
from typing import Any, cast

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.template.defaultfilters import date
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.text import capfirst

from config import background
from league.services import bot_retire
from tests.factories import CompetitionFactory, EntrantFactory, UserFactory
from tests.tournaments.test_admin import change_url, changelist_url, organiser_of, table_rows
from tests.tournaments.test_challenges import Ladder, call
from tournaments.models import Challenge, Competition, Entrant, Standing
from tournaments.services import scheduling
from tournaments.services.competitions import competition_start
from tournaments.services.play import competition_play_pending
from tournaments.services.rating_ladder import rating_ladders_tick

pytestmark = pytest.mark.django_db

Committed = Callable[[], AbstractContextManager[Any]]


# --- Ladders with a history (also built by tests/e2e/test_ladder_pages.py) -----------------------------


def challenge_ladder_with_history(committed: Committed) -> Ladder:
    """Six entrants, bots and people, and four challenges: played by bots, declined, played by a person
    against a bot (War asks players for nothing), and issued; then the bot Cog, in no open challenge,
    leaves. ``committed`` runs what commits, so that bots' matches are played."""
    ladder = Ladder()
    ace, bolt, cog = (ladder.bot(name) for name in ("Ace", "Bolt", "Cog"))
    (ann, ann_player), (bob, bob_player), (cat, cat_player) = (ladder.person(n) for n in ("Ann", "Bob", "Cat"))
    ladder.start(order=[ace, ann, bolt, bob, cog, cat])
    with committed():
        # 1: bot against bot, played at once.
        assert ladder.challenge(ladder.organiser, cog, bolt).status_code == 201
    with committed():
        # 2: Cat challenges Bob, who declines and so forfeits the place.
        number = ladder.challenge(cat_player, cat, bob).json()["number"]
        assert call(bob_player, "post", f"{ladder.url}/challenges/{number}/decline/").status_code == 200
    with committed():
        # 3: Ann challenges the bot above her, which accepts at once; War has no decisions, so it is played.
        assert ladder.challenge(ann_player, ann, ace).status_code == 201
    with committed():
        # 4: Bob, now just below Cat, challenges her back; she has not answered yet.
        assert ladder.challenge(bob_player, bob, cat).status_code == 201
        assert call(ladder.organiser, "delete", f"{ladder.url}/entrants/{cog.pk}/").status_code == 204
    return ladder


def rating_ladder_with_a_leaver(rounds: int = 3) -> Competition:
    """Four bots over ``rounds`` rounds; the first one's bot is retired after round 1, so it leaves."""
    competition = CompetitionFactory(format="rating_ladder", games_per_match=3, name="Bot ladder")
    for name in ("Rex", "Sid", "Tam", "Uma"):
        EntrantFactory(competition=competition, name=name)
    competition_start(competition=competition)
    for number in range(rounds):
        rating_ladders_tick()
        competition_play_pending(competition=competition)
        if number == 0:
            leaver = Entrant.objects.get(competition=competition, name="Rex")
            bot_retire(bot=cast(Any, leaver.bot_version).bot)
    competition.refresh_from_db()
    return competition


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Callable[..., AbstractContextManager[Any]]) -> Committed:
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def not_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beat's rounds are played here by competition_play_pending, not sent to a broker."""

    def send_now(task_name: str, args: tuple[object, ...], *, queue: str) -> None:
        assert task_name == scheduling.RUN_MATCHES

    monkeypatch.setattr(background, "send_now", send_now)


@pytest.fixture
def rating_settings(settings: Any) -> None:
    settings.RATING_LADDER_BATCH = 200
    settings.RATING_LADDER_PLACEMENT_MATCHES = 2
    settings.RATING_LADDER_EXPLORATION_PERCENT = 0


def staff_organiser(ladder: Ladder) -> AbstractBaseUser:
    """The ladder's organiser, let into the admin site."""
    user = ladder.organiser.user
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return cast(AbstractBaseUser, user)


@pytest.fixture
def root(client: Client) -> Client:
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


# --- Reading pages -------------------------------------------------------------------------------------


#: Elements that never have an end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _RowsIn(HTMLParser):
    """The text of every table cell inside the element with a given id (itself a table, or a part holding some)."""

    def __init__(self, element_id: str) -> None:
        super().__init__()
        self.element_id = element_id
        self.depth = 0  # >0 while inside the element
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        if not self.depth:
            self.depth = int(dict(attrs).get("id") == self.element_id)
            if not self.depth:
                return
        else:
            self.depth += 1
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not self.depth:
            return
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def rows_in(html: str, element_id: str) -> list[list[str]]:
    """The rows of the tables in the element with ``element_id``: the admin page and the public one give a
    format's part the same ids."""
    parser = _RowsIn(element_id)
    parser.feed(html)
    return parser.rows


def part_text(html: str, element_id: str) -> str:
    """The words of the element with ``element_id``, spaces squeezed."""
    parser = _TextIn(element_id)
    parser.feed(html)
    return " ".join("".join(parser.text).split())


#: Elements inside a line of text: the others part words as a browser's lines would.
INLINE = {"a", "abbr", "b", "code", "em", "i", "small", "span", "strong"}


class _TextIn(HTMLParser):
    def __init__(self, element_id: str) -> None:
        super().__init__()
        self.element_id = element_id
        self.depth = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        if self.depth:
            self.depth += 1
            self.text.append("" if tag in INLINE else " ")
        elif dict(attrs).get("id") == self.element_id:
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.depth:
            self.depth -= 1
            self.text.append("" if tag in INLINE else " ")

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)


def chart_data(html: str) -> list[dict[str, Any]]:
    start = html.index('<script id="rating-chart-data" type="application/json">')
    body = html[html.index(">", start) + 1 : html.index("</script>", start)]
    return cast(list[dict[str, Any]], json.loads(body))


def expected_ladder_rows(ladder: Ladder) -> list[list[str]]:
    """Place, name (bots marked), and the open challenge in words, as both pages list them."""
    rows = []
    for place, name in enumerate(ladder.places(), start=1):
        entrant = Entrant.objects.get(competition_id=ladder.id, name=name)
        side = entrant.challenge_sides.filter(open=True).select_related("challenge").first()
        if side is None:
            open_text = "—"
        else:
            role = "challenging" if side.role == "challenger" else "challenged"
            state = "not accepted yet" if side.challenge.status == "issued" else "accepted, not played yet"
            open_text = f"Challenge {side.challenge.number}: {role}, {state}"
        rows.append([str(place), name + ("" if entrant.player_id else " (bot)"), open_text])
    return rows


def expected_history_row(challenge: Challenge, *, admin: bool) -> list[str]:
    """A challenge as both pages list it (the admin's with a link to its match, both with a played one's replay):
    number, who challenged whom, how it ended and when, and the places it decided."""
    defenders = challenge.sides.filter(role="defender").order_by("place").values_list("entrant__name", flat=True)
    if challenge.decided_at:
        result = f"{capfirst(challenge.outcome or challenge.get_status_display())} {date(challenge.decided_at, WHEN)}"
    else:
        result = f"Not accepted yet due by {date(challenge.deadline, WHEN)}"
    if admin and challenge.match_id:
        result += f" match {challenge.match_id}"
    if challenge.status == Challenge.Status.PLAYED and challenge.match_id:
        result += " replay"  # the played match's replay (site/replays/)
    places = " ".join(names_moved(challenge)) if challenge.top_place is not None else "—"
    return [str(challenge.number), f"{challenge.challenger.name} challenged {', '.join(defenders)}", result, places]


#: How the pages write a time.
WHEN = "j M Y H:i"


def names_moved(challenge: Challenge) -> list[str]:
    names = dict(Entrant.objects.filter(competition_id=challenge.competition_id).values_list("id", "name"))
    top = cast(int, challenge.top_place)
    return [
        f"{top + i}. {names[b]} → {names[a]}" if a != b else f"{top + i}. {names[b]} (kept)"
        for i, (b, a) in enumerate(zip(challenge.places_before, challenge.places_after, strict=True))
    ]


def assert_by_rating(competition: Competition, shown: list[str]) -> None:
    """Every entrant once, highest ordinal first (equal ordinals, as two winners of one round have, in
    either order: the selector breaks that tie by the game's tiebreaks)."""
    ordinals = dict(Standing.objects.filter(competition=competition).values_list("entrant__name", "ordinal"))
    names = [name.removesuffix(" (left)") for name in shown]
    assert sorted(names) == sorted(ordinals)
    in_order = [ordinals[name] for name in names]
    assert in_order == sorted(in_order, reverse=True)


# --- The challenge ladder on its admin page ---------------------------------------------------------------


@pytest.mark.parametrize("who", ["superuser", "organiser"])
def test_a_challenge_ladder_s_page_shows_its_places_and_its_history(
    client: Client, committed: Committed, who: str
) -> None:
    ladder = challenge_ladder_with_history(committed)
    if who == "superuser":
        client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    else:
        client.force_login(staff_organiser(ladder))
    response = client.get(change_url(ladder.competition))
    assert response.status_code == 200
    html = response.text

    ladder_rows = rows_in(html, "ladder")
    assert ladder_rows[0] == ["Place", "Player", "Open challenge"]
    assert ladder_rows[1:] == expected_ladder_rows(ladder)
    assert len(ladder_rows) == 1 + 5  # Cog left
    assert "Left the ladder (their results stay in the standings): Cog v1 (bot) on " in part_text(html, "ladder")

    history = rows_in(html, "challenges")
    assert history[0] == ["No.", "Challenge", "Result", "Places before → after"]
    challenges = list(Challenge.objects.filter(competition_id=ladder.id).order_by("-number"))
    assert history[1:] == [expected_history_row(challenge, admin=True) for challenge in challenges]
    assert [row[0] for row in history[1:]] == ["4", "3", "2", "1"]
    assert history[3][1:3] == [
        "Cat challenged Bob",
        f"Bob declined: Bob forfeited {date(challenges[2].decided_at, WHEN)}",
    ]
    assert history[1][2].startswith("Not accepted yet due by ")
    # Challenge 2: Cat took Bob's place.
    assert "Bob → Cat" in history[3][3]
    for challenge in challenges:
        assert reverse("admin:tournaments_challenge_change", args=[challenge.pk]) in html
        if challenge.match_id:
            assert reverse("admin:tournaments_match_change", args=[challenge.match_id]) in html
    for entrant in Entrant.objects.filter(competition_id=ladder.id, position__isnull=False):
        assert reverse("admin:tournaments_entrant_change", args=[entrant.pk]) in html

    standings = table_rows(html, "standings")
    assert standings[-1][1] == "Cog v1 (left)"
    assert "Ordered by place on the ladder; those who left follow" in html
    assert response.context["rating_chart_axis"] == "time"
    assert 'data-x-axis="time"' in html


def test_a_challenge_ladder_s_part_is_the_same_on_the_admin_page_and_the_public_one_but_for_admin_links(
    root: Client, committed: Committed
) -> None:
    ladder = challenge_ladder_with_history(committed)
    admin = root.get(change_url(ladder.competition)).text
    public = Client().get(f"/competitions/{ladder.id}/").text

    assert rows_in(public, "ladder") == rows_in(admin, "ladder")
    challenges = Challenge.objects.filter(competition_id=ladder.id).order_by("-number")
    assert rows_in(public, "challenges")[1:] == [expected_history_row(c, admin=False) for c in challenges]
    assert part_text(public, "ladder") == part_text(admin, "ladder")
    for part in ("ladder", "challenges"):
        assert f'id="{part}"' in public and "/admin/" not in section_of(public, part)
        assert "/admin/" in section_of(admin, part)


def section_of(html: str, element_id: str) -> str:
    """The markup from the element with ``element_id`` to the end of its section."""
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</section>", start)]


def test_an_organiser_sees_the_challenges_of_their_clubs_ladders_only(client: Client, committed: Committed) -> None:
    ours, theirs = challenge_ladder_with_history(committed), challenge_ladder_with_history(committed)
    client.force_login(staff_organiser(ours))
    listed = client.get(changelist_url(Challenge)).context["cl"].result_list
    assert {c.competition_id for c in listed} == {ours.id}
    theirs_challenge = Challenge.objects.filter(competition_id=theirs.id).first()
    assert client.get(change_url(theirs_challenge)).status_code == 302  # out of sight, as other clubs' rows are
    assert client.get(change_url(theirs.competition)).status_code == 302


def test_a_ladder_page_takes_as_many_queries_for_a_long_history_as_for_a_short_one(
    root: Client, committed: Committed
) -> None:
    ladder = Ladder()
    bots = [ladder.bot(name) for name in "abcdef"]
    ladder.start(order=bots)
    root.get(change_url(ladder.competition))

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert root.get(change_url(ladder.competition)).status_code == 200
        return len(captured)

    def challenge_from_the_bottom() -> None:
        order = ladder.places()
        low, above = (Entrant.objects.get(competition_id=ladder.id, name=n) for n in (order[-1], order[-2]))
        with committed():
            assert ladder.challenge(ladder.organiser, low, above).status_code == 201

    challenge_from_the_bottom()
    short = queries()
    for _ in range(4):
        challenge_from_the_bottom()
    assert queries() == short


# --- The Challenge admin ----------------------------------------------------------------------------------


def test_the_challenge_list_filters_by_status_and_competition_and_finds_entrants_by_name(
    root: Client, committed: Committed
) -> None:
    ladder = challenge_ladder_with_history(committed)
    challenge_ladder_with_history(committed)  # another ladder, with the same names

    def numbers(query: str) -> list[tuple[int, int]]:
        response = root.get(changelist_url(Challenge) + query)
        assert response.status_code == 200
        return [(c.competition_id, c.number) for c in response.context["cl"].result_list]

    assert len(numbers("")) == 8
    assert sorted(numbers(f"?competition__id__exact={ladder.id}")) == [(ladder.id, n) for n in (1, 2, 3, 4)]
    assert numbers(f"?competition__id__exact={ladder.id}&status__exact=declined") == [(ladder.id, 2)]
    # Cat is a side of challenges 2 and 4 (as challenger or defender), each listed once.
    found = numbers(f"?competition__id__exact={ladder.id}&q=Cat")
    assert sorted(found) == [(ladder.id, 2), (ladder.id, 4)]
    page = root.get(changelist_url(Challenge)).text
    assert "Bob declined: Bob forfeited" in page


def test_the_challenge_list_takes_as_many_queries_for_many_challenges_as_for_few(
    root: Client, committed: Committed
) -> None:
    challenge_ladder_with_history(committed)
    root.get(changelist_url(Challenge))

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert root.get(changelist_url(Challenge)).status_code == 200
        return len(captured)

    few = queries()
    challenge_ladder_with_history(committed)
    challenge_ladder_with_history(committed)
    assert queries() == few


def test_a_challenge_s_page_is_read_only_and_names_its_sides_and_places(root: Client, committed: Committed) -> None:
    ladder = challenge_ladder_with_history(committed)
    declined = Challenge.objects.get(competition_id=ladder.id, number=2)
    response = root.get(change_url(declined))
    assert response.status_code == 200
    assert response.context["has_change_permission"] is False
    assert response.context["has_delete_permission"] is False
    html = " ".join(response.text.split())
    assert "Places before → after" in html
    for line in names_moved(declined):
        place, rest = line.split(". ", 1)
        before, _, after = rest.partition(" → ")
        if after:
            assert f'<td class="number">{place}</td><td>{before}</td><td>{after}</td><td>moved</td>' in html
    sides = [(s.entrant.name, s.role) for s in declined.sides.select_related("entrant")]
    assert sorted(sides) == [("Bob", "defender"), ("Cat", "challenger")]
    for name, role in sides:
        assert name in html and role.capitalize() in html
    # Nothing to add, change or delete: challenges change only through the services.
    assert root.get(reverse("admin:tournaments_challenge_add")).status_code == 403
    assert root.post(change_url(declined), {"status": "played"}).status_code == 403
    assert root.get(reverse("admin:tournaments_challenge_delete", args=[declined.pk])).status_code == 403
    delete_url = reverse("admin:tournaments_challenge_delete", args=[declined.pk])
    assert root.post(delete_url, {"post": "yes"}).status_code == 403
    bulk = root.post(
        changelist_url(Challenge), {"action": "delete_selected", "_selected_action": [declined.pk], "post": "yes"}
    )
    assert bulk.status_code in (200, 302)
    declined.refresh_from_db()
    assert declined.status == Challenge.Status.DECLINED


def test_an_undecided_challenge_says_so(root: Client, committed: Committed) -> None:
    ladder = challenge_ladder_with_history(committed)
    issued = Challenge.objects.get(competition_id=ladder.id, number=4)
    assert "not decided yet" in root.get(change_url(issued)).text


# --- The rating ladder ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("not_sent", "rating_settings")
@pytest.mark.parametrize("who", ["superuser", "organiser"])
def test_a_rating_ladder_s_page_shows_its_rounds_its_table_by_rating_and_who_left(client: Client, who: str) -> None:
    competition = rating_ladder_with_a_leaver(rounds=3)
    if who == "superuser":
        client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    else:
        client.force_login(organiser_of(competition.club).user)
    response = client.get(change_url(competition))
    assert response.status_code == 200
    html = response.text

    progress = dict((row[0], row[1]) for row in rows_in(html, "rating-ladder"))
    done = competition.matches.filter(status="done").count()
    assert progress == {
        "Rounds played": "3",
        "Matches played": f"{done} of {competition.matches.count()}",
        "Entrants who left": "1",
    }
    assert "round after round until the ladder is cancelled" in part_text(html, "rating-ladder")
    standings = table_rows(html, "standings")[1:]
    assert_by_rating(competition, [row[1] for row in standings])
    assert [row[1] for row in standings if row[1].endswith("(left)")] == ["Rex (left)"]
    assert "Ordered by rating (ordinal, μ − 3σ), highest first" in html

    lines = chart_data(html)
    assert 'data-x-axis="time"' in html
    assert sorted(line["name"] for line in lines) == ["Rex", "Sid", "Tam", "Uma"]
    for line in lines:
        xs = [x for x, _ in line["points"]]
        assert xs == sorted(xs) and all(x > 1_700_000_000 for x in xs)  # epoch seconds, left to right
        assert line["points"][0][1] == 25


@pytest.mark.usefixtures("not_sent", "rating_settings")
def test_the_public_page_of_a_rating_ladder_shows_its_table_by_rating_and_the_chart_over_time(client: Client) -> None:
    competition = rating_ladder_with_a_leaver(rounds=2)
    html = client.get(f"/competitions/{competition.pk}/").text
    names = [row[1] for row in rows_in(html, "standings")[1:]]
    assert_by_rating(competition, names)
    assert "Rex (left)" in names
    assert 'data-x-axis="time"' in html and len(chart_data(html)) == 4
    assert rows_in(html, "rating-ladder")[0] == ["Rounds played", "2"]


@pytest.mark.usefixtures("not_sent", "rating_settings")
def test_a_rating_ladder_s_part_is_the_same_on_both_pages_and_counts_to_its_last_round(root: Client) -> None:
    competition = rating_ladder_with_a_leaver(rounds=2)
    competition.settings = {**competition.settings, "ladder_rounds": 5}
    competition.save(update_fields=["settings"])
    admin = root.get(change_url(competition)).text
    public = Client().get(f"/competitions/{competition.pk}/").text

    assert part_text(public, "rating-ladder") == part_text(admin, "rating-ladder")
    assert rows_in(public, "rating-ladder")[0] == ["Rounds played", "2 of 5"]
    assert "until round 5." in part_text(public, "rating-ladder")


def test_a_round_robin_s_chart_keeps_its_rounds(root: Client) -> None:
    competition = CompetitionFactory(game="war")
    for _ in range(3):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    competition_play_pending(competition=competition)
    html = root.get(change_url(competition)).text
    assert 'data-x-axis="round"' in html
    assert all(line["points"][0] == [0, 25] for line in chart_data(html))


# --- The public page of a challenge ladder --------------------------------------------------------------


def test_the_public_page_of_a_challenge_ladder_shows_its_places_and_latest_challenges(
    client: Client, committed: Committed
) -> None:
    ladder = challenge_ladder_with_history(committed)
    html = client.get(f"/competitions/{ladder.id}/").text
    rows = rows_in(html, "ladder")
    assert rows[1:] == expected_ladder_rows(ladder)
    assert [row[1] for row in rows[1:]] == [
        name + (" (bot)" if name.endswith(" v1") else "") for name in ladder.places()
    ]
    challenges = rows_in(html, "challenges")
    assert [row[0] for row in challenges[1:]] == ["4", "3", "2", "1"]
    assert challenges[3][1] == "Cat challenged Bob" and challenges[3][2].startswith("Bob declined: Bob forfeited ")
    assert "Bob → Cat" in challenges[3][3]
    assert "4 challenges, newest first." in part_text(html, "challenges")


def test_the_public_page_lists_the_latest_twenty_challenges_and_the_admin_a_hundred(
    root: Client, committed: Committed
) -> None:
    ladder = Ladder()
    bots = [ladder.bot(name) for name in "ab"]
    ladder.start(order=bots)
    for _ in range(22):
        low, top = reversed(ladder.places())
        challenger, defender = (Entrant.objects.get(competition_id=ladder.id, name=n) for n in (low, top))
        with committed():
            assert ladder.challenge(ladder.organiser, challenger, defender).status_code == 201
    public = Client().get(f"/competitions/{ladder.id}/").text
    assert [row[0] for row in rows_in(public, "challenges")[1:]] == [str(n) for n in range(22, 2, -1)]
    assert "The latest 20 of 22 challenges, newest first." in part_text(public, "challenges")
    assert "Every challenge of this ladder" not in public
    admin = root.get(change_url(ladder.competition)).text
    assert [row[0] for row in rows_in(admin, "challenges")[1:]] == [str(n) for n in range(22, 0, -1)]
    assert "22 challenges, newest first." in part_text(admin, "challenges")
