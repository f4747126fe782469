"""/api/tournaments/: creating, changing, starting, playing and cancelling competitions through the API."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.factories import CompetitionFactory, EntrantFactory, PlayerFactory
from tests.league.test_api_support import add_entrants, client_for, make_cast, organised_competition, results
from tournaments.models import Competition, Match

pytestmark = pytest.mark.django_db


def test_a_club_member_creates_a_competition_and_organises_it() -> None:
    cast = make_cast()
    # A club's organisers create its competitions unless the club lets every member (test_api_clubs.py).
    cast.club.competition_creators = "members"
    cast.club.save()
    payload = {"club": cast.club.pk, "name": "Spring league", "game": "1923", "options": {"target_points": 50}}
    response = cast.client("member").post("/api/tournaments/", payload, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["organisers"] == [cast.member.pk] and body["created_by"] == cast.member.pk
    assert body["options"]["target_points"] == 50 and body["options"]["mode"] == "match"
    assert body["status"] == "open" and body["entrant_count"] == 0
    assert "seed" not in body


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        ({"game": "chess"}, "game", 'unknown game "chess"'),
        ({"options": {"max_rounds": 0}}, "options", "option 'max_rounds'"),
        ({"options": {"speed": 3}}, "options", "option 'speed'"),
        ({"options": [1, 2]}, "options", 'Expected a dictionary of items but got type "list".'),
        ({"players_per_match": "two"}, "players_per_match", "A valid integer is required."),
        ({"players_per_match": 3}, "players_per_match", "war seats 2 to 2 at a table, not 3"),
        ({"games_per_match": 0}, "games_per_match", "must be between 1 and 1000"),
        ({"max_entrants": True}, "max_entrants", "A valid integer is required."),
        ({"format": "monrad"}, "format", '"monrad" is not a valid choice.'),
        ({"club": 999999}, "club", 'Invalid pk "999999" - object does not exist.'),
        ({"name": ""}, "name", "This field may not be blank."),
    ],
)
def test_bad_competition_input_is_a_400_naming_the_field(change: dict[str, Any], field: str, fragment: str) -> None:
    cast = make_cast()
    payload = {"club": cast.club.pk, "name": "X", "game": "war", **change}
    response = cast.client("organiser").post("/api/tournaments/", payload, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert fragment in response.json()[field][0]


def test_someone_outside_the_club_cannot_create_its_competitions() -> None:
    cast = make_cast()
    payload = {"club": cast.club.pk, "name": "X", "game": "war"}
    response = cast.client("stranger").post("/api/tournaments/", payload, format="json")
    assert response.status_code == 403
    assert not Competition.objects.filter(name="X").exists()


def test_an_organiser_changes_rules_while_open_and_only_the_name_after_the_start() -> None:
    cast = make_cast()
    url = f"/api/tournaments/{cast.competition.pk}/"
    client = cast.client("organiser")
    changed = client.patch(url, {"name": "Renamed", "options": {"max_rounds": 500}, "max_entrants": 8}, format="json")
    assert changed.status_code == 200
    assert (changed.json()["name"], changed.json()["options"], changed.json()["max_entrants"]) == (
        "Renamed",
        {"max_rounds": 500},
        8,
    )
    assert client.patch(url, {"max_entrants": None}, format="json").json()["max_entrants"] is None
    bad = client.patch(url, {"options": {"max_rounds": -1}}, format="json")
    assert bad.status_code == 400 and "option 'max_rounds'" in bad.json()["options"][0]
    add_entrants(cast.competition, 2)
    assert client.post(f"{url}start/").status_code == 200
    late = client.patch(url, {"games_per_match": 3, "name": "Late"}, format="json")
    assert late.status_code == 400
    assert late.json() == {"games_per_match": ["can change only while entries are open; the competition is running"]}
    assert client.patch(url, {"name": "Late"}, format="json").json()["name"] == "Late"


def test_max_entrants_cannot_drop_below_those_already_in() -> None:
    cast = make_cast()
    add_entrants(cast.competition, 3)
    response = cast.client("organiser").patch(
        f"/api/tournaments/{cast.competition.pk}/", {"max_entrants": 2}, format="json"
    )
    assert response.status_code == 400 and response.json() == {"max_entrants": ["3 entrants have already joined"]}


def test_starting_with_too_few_entrants_is_a_400() -> None:
    cast = make_cast()
    add_entrants(cast.competition, 1)
    response = cast.client("organiser").post(f"/api/tournaments/{cast.competition.pk}/start/")
    assert response.status_code == 400
    assert response.json() == {"entrants": ["a round robin of tables of 2 needs at least 2 entrants"]}
    cast.competition.refresh_from_db()
    assert cast.competition.status == Competition.Status.OPEN


def test_start_queues_the_rounds_and_progress_counts_matches_and_games(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    cast = make_cast("banter")
    add_entrants(cast.competition, 4)
    client = cast.client("organiser")
    base = f"/api/tournaments/{cast.competition.pk}"
    # Tasks run inline in unit tests; each round's commit queues the next round.
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(f"{base}/start/")
    assert started.status_code == 200 and started.json()["status"] == "running"
    progress = client_for().get(f"{base}/progress/").json()
    assert {k: v for k, v in progress.items() if k != "games_per_second"} == {
        "pending": 0,
        "running": 0,
        "done": 6,
        "error": 0,
        "cancelled": 0,
        "total": 6,
        "games_played": 6,
    }
    assert progress["games_per_second"] > 0
    again = client.post(f"{base}/play/")
    assert again.status_code == 400
    assert again.json() == {"competition": ["only a running competition can be played; this one is finished"]}


def test_play_resends_the_pending_matches_of_released_rounds() -> None:
    cast = make_cast()
    add_entrants(cast.competition, 4)
    client = cast.client("organiser")
    base = f"/api/tournaments/{cast.competition.pk}"
    client.post(f"{base}/start/")  # the commit never comes in this test: the schedule is released, not played
    played = client.post(f"{base}/play/")
    assert played.status_code == 200
    assert played.json()["queued"] == 6 and played.json()["progress"]["pending"] == 6


def test_playing_an_open_competition_or_starting_twice_is_a_400() -> None:
    cast = make_cast()
    add_entrants(cast.competition, 2)
    client = cast.client("organiser")
    base = f"/api/tournaments/{cast.competition.pk}"
    assert client.post(f"{base}/play/").json() == {
        "competition": ["only a running competition can be played; this one is open"]
    }
    client.post(f"{base}/start/")
    assert client.post(f"{base}/start/").json() == {
        "competition": ["only an open competition can start; this one is running"]
    }


def test_cancelling_cancels_pending_matches_and_refuses_a_second_time() -> None:
    cast = make_cast()
    add_entrants(cast.competition, 3)
    client = cast.client("organiser")
    base = f"/api/tournaments/{cast.competition.pk}"
    client.post(f"{base}/start/")
    cancelled = client.post(f"{base}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert set(Match.objects.filter(competition=cast.competition).values_list("status", flat=True)) == {"cancelled"}
    assert client.post(f"{base}/cancel/").status_code == 400


def test_competitions_filter_by_game_status_player_and_dates() -> None:
    cast = make_cast()
    banter = organised_competition(cast.club, cast.organiser, "banter")
    EntrantFactory(competition=banter, bot_version__bot__owner=cast.owner)
    old = CompetitionFactory(game="war", status=Competition.Status.FINISHED)
    Competition.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=30))
    client = client_for()

    def ids(**query: Any) -> list[int]:
        return [row["id"] for row in results(client.get("/api/tournaments/", query))]

    assert ids(game="banter") == [banter.pk]
    assert ids(status="finished") == [old.pk]
    assert ids(player=cast.owner.pk) == [banter.pk]
    today = timezone.now().date()
    assert ids(created_before=(today - timedelta(days=1)).isoformat()) == [old.pk]
    assert set(ids(created_after=today.isoformat())) == {cast.competition.pk, banter.pk}
    assert client.get("/api/tournaments/", {"created_after": "soon"}).json() == {"created": ["Enter a valid date."]}
    assert list(client.get("/api/tournaments/", {"status": "paused"}).json()) == ["status"]


def test_the_competition_list_costs_four_queries_however_long(django_assert_num_queries) -> None:
    for _ in range(6):
        competition = CompetitionFactory()
        competition.organisers.add(PlayerFactory(), PlayerFactory())
        add_entrants(competition, 2)
    with django_assert_num_queries(4):  # count + page (entrants counted) + organisers + referees
        rows = results(client_for().get("/api/tournaments/"))
    assert len(rows) == 6
    assert all(len(r["organisers"]) == 2 and r["entrant_count"] == 2 for r in rows)


def test_a_missing_competition_is_a_404() -> None:
    assert client_for().get("/api/tournaments/999999/").status_code == 404
    assert client_for().get("/api/tournaments/999999/standings/").status_code == 404


def test_organisers_set_the_live_clocks_and_referees_and_refuse_outsiders_as_referees() -> None:
    from tests.factories import MembershipFactory
    from tests.league.test_api_support import make_cast

    cast = make_cast()
    base = f"/api/tournaments/{cast.competition.pk}/"
    changed = cast.client("organiser").patch(
        base, {"move_seconds": 60, "game_seconds": 600, "live_tables_public": False}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert (changed.json()["move_seconds"], changed.json()["live_tables_public"]) == (60, False)
    short = cast.client("organiser").patch(base, {"game_seconds": 30}, format="json")
    assert short.status_code == 400 and "game_seconds" in short.json()
    outsider = cast.client("organiser").patch(base, {"referees": [cast.stranger.pk]}, format="json")
    assert outsider.status_code == 400 and "not members" in outsider.json()["referees"][0]
    MembershipFactory(club=cast.club, player=cast.stranger)
    named = cast.client("organiser").patch(base, {"referees": [cast.stranger.pk]}, format="json")
    assert named.status_code == 200 and named.json()["referees"] == [cast.stranger.pk]
    assert cast.client("member").patch(base, {"referees": []}, format="json").status_code == 403
