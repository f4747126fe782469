"""/api/matches/{id}/transcripts/ and /api/tournaments/{id}/disputes/: the transcript flow over HTTP."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from league.models import Membership, Player
from tests.factories import MembershipFactory, PlayerFactory
from tests.league.test_api_support import client_for
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.models import Match, Standing, Transcript

pytestmark = pytest.mark.django_db

Capture = Callable[..., Any]


def as_player(player: Player) -> APIClient:
    return client_for(player.user)


def url(match: Match, tail: str = "") -> str:
    return f"/api/matches/{match.pk}/transcripts/{tail}"


@pytest.fixture
def posted(django_capture_on_commit_callbacks: Capture) -> Callable[..., Any]:
    """POST a transcript; the verifier runs after commit (eagerly, as a worker would)."""

    def post(match: Match, player: Player, record: object, game_number: object = 0) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return as_player(player).post(url(match), {"game_number": game_number, "record": record}, format="json")

    return post


def test_a_participant_submits_json_and_the_worker_verifies_it(posted: Callable[..., Any]) -> None:
    match, players = transcript_match("war")
    response = posted(match, players[0], table_record(match))
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["number"], body["game_number"], body["status"]) == (1, 0, "submitted")
    shown = as_player(players[1]).get(url(match, "1/")).json()
    assert shown["status"] == "verified"
    assert [(e["action"], e["actor_name"]) for e in shown["events"]] == [
        ("submit", players[0].display_name),
        ("verify", "verifier"),
    ]


def test_a_participant_uploads_a_record_file(django_capture_on_commit_callbacks: Capture) -> None:
    match, players = transcript_match("punk", people=3)
    upload = SimpleUploadedFile("game.json", json.dumps(table_record(match)).encode(), "application/json")
    with django_capture_on_commit_callbacks(execute=True):
        response = as_player(players[2]).post(url(match), {"game_number": "0", "file": upload}, format="multipart")
    assert response.status_code == 201, response.json()
    assert Transcript.objects.get().status == Transcript.Status.VERIFIED


def test_an_upload_that_is_not_json_is_a_400_naming_the_file() -> None:
    match, players = transcript_match("war")
    upload = SimpleUploadedFile("game.json", b"deal: 2C 3C ...", "application/json")
    response = as_player(players[0]).post(url(match), {"game_number": 0, "file": upload}, format="multipart")
    assert response.status_code == 400
    assert response.json()["file"][0].startswith("not valid JSON")
    assert not Transcript.objects.exists()


def test_a_body_that_is_not_json_is_a_400() -> None:
    match, players = transcript_match("war")
    response = as_player(players[0]).post(url(match), "{not json", content_type="application/json")
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]
    assert not Transcript.objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda r: r.update(format="chess/1"), "record", "format: expected 'cardgames-record/1', got 'chess/1'"),
        (lambda r: r["options"].update(fast=True), "record", "options: option 'fast': unknown option"),
        (lambda r: r.update(deal=None), "record", "deal: required"),
    ],
)
def test_a_malformed_record_is_a_400_naming_the_field(
    change: Callable[[dict[str, Any]], object], field: str, message: str
) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    change(record)
    response = as_player(players[0]).post(url(match), {"game_number": 0, "record": record}, format="json")
    assert response.status_code == 400
    assert response.json()[field][0].startswith(message)
    assert not Transcript.objects.exists()


def test_a_missing_game_number_or_record_is_a_400() -> None:
    match, players = transcript_match("war")
    response = as_player(players[0]).post(url(match), {"record": table_record(match)}, format="json")
    assert response.status_code == 400 and "game_number" in response.json()
    response = as_player(players[0]).post(url(match), {"game_number": 0}, format="json")
    assert response.status_code == 400 and "record" in response.json()
    response = as_player(players[0]).post(url(match), {"game_number": 5, "record": table_record(match)}, format="json")
    assert response.status_code == 400
    assert response.json() == {"game_number": ["this match plays games 0 to 0, not 5"]}


def test_only_people_in_the_match_submit(posted: Callable[..., Any]) -> None:
    match, _ = transcript_match("war")
    outsider = PlayerFactory()
    assert posted(match, outsider, table_record(match)).status_code == 403
    anonymous = APIClient().post(url(match), {"game_number": 0, "record": table_record(match)}, format="json")
    assert anonymous.status_code == 401
    assert not Transcript.objects.exists()


def test_an_unknown_match_or_transcript_is_a_404() -> None:
    match, players = transcript_match("war")
    assert as_player(players[0]).get("/api/matches/999999/transcripts/").status_code == 404
    assert as_player(players[0]).get(url(match, "7/")).status_code == 404
    assert as_player(players[0]).post(url(match, "7/confirm/")).status_code == 404


def test_a_submission_to_a_finished_match_is_a_409() -> None:
    match, players = transcript_match("war")
    Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE)
    response = as_player(players[0]).post(url(match), {"game_number": 0, "record": table_record(match)}, format="json")
    assert response.status_code == 409
    assert response.json() == {"detail": "only a live match takes transcripts; this one is done"}


def test_transcripts_and_their_trail_are_for_participants_referees_and_organisers(
    posted: Callable[..., Any], django_assert_num_queries: Any
) -> None:
    match, players = transcript_match("war", games=2)
    posted(match, players[0], table_record(match))
    posted(match, players[1], table_record(match, 1), game_number=1)
    referee, organiser, member = PlayerFactory(), PlayerFactory(), PlayerFactory()
    MembershipFactory(club=match.competition.club, player=referee)
    match.competition.referees.add(referee)
    MembershipFactory(club=match.competition.club, player=organiser, role=Membership.Role.ORGANISER)
    MembershipFactory(club=match.competition.club, player=member)
    for reader in (players[0], players[1], referee, organiser):
        response = as_player(reader).get(url(match))
        assert response.status_code == 200
        assert [(t["number"], t["status"], len(t["events"])) for t in response.json()] == [
            (1, "verified", 2),
            (2, "verified", 2),
        ]
        assert response.json()[0]["record"]["deal"] is not None
    for outsider in (member, PlayerFactory()):
        assert as_player(outsider).get(url(match)).status_code == 403
        assert as_player(outsider).get(url(match, "1/")).status_code == 403
    assert APIClient().get(url(match)).status_code == 401
    client = as_player(players[0])
    # player + match + the seat check + transcripts + confirmations + events + their actors
    with django_assert_num_queries(7):
        client.get(url(match))


def test_confirm_then_the_match_is_recorded_and_a_second_confirm_is_a_409(posted: Callable[..., Any]) -> None:
    match, players = transcript_match("war")
    posted(match, players[0], table_record(match))
    assert as_player(players[0]).post(url(match, "1/confirm/")).status_code == 409
    response = as_player(players[1]).post(url(match, "1/confirm/"))
    assert response.status_code == 200
    assert response.json()["status"] == "accepted"
    assert response.json()["confirmed_by"] == [match.participants.get(seat=1).entrant_id]
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
    assert [s.played for s in Standing.objects.filter(competition=match.competition)] == [1, 1]
    again = as_player(players[1]).post(url(match, "1/confirm/"))
    assert again.status_code == 409
    assert "accepted" in again.json()["detail"]


def test_a_dispute_is_listed_for_organisers_who_void_it(posted: Callable[..., Any]) -> None:
    match, players = transcript_match("war")
    posted(match, players[0], table_record(match))
    assert as_player(players[1]).post(url(match, "1/dispute/"), {}, format="json").status_code == 400
    response = as_player(players[1]).post(url(match, "1/dispute/"), {"note": "wrong deal"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "disputed"

    organiser = PlayerFactory()
    MembershipFactory(club=match.competition.club, player=organiser, role=Membership.Role.ORGANISER)
    disputes = f"/api/tournaments/{match.competition_id}/disputes/"
    assert as_player(players[0]).get(disputes).status_code == 403
    listed = as_player(organiser).get(disputes)
    assert listed.status_code == 200
    assert [(t["match"], t["number"], t["events"][-1]["note"]) for t in listed.json()] == [(match.pk, 1, "wrong deal")]

    assert as_player(players[0]).post(url(match, "1/void/"), {"reason": "mine"}, format="json").status_code == 403
    assert as_player(organiser).post(url(match, "1/void/"), {}, format="json").status_code == 400
    voided = as_player(organiser).post(url(match, "1/void/"), {"reason": "misdealt"}, format="json")
    assert voided.status_code == 200
    assert (voided.json()["status"], voided.json()["reason"]) == ("voided", "misdealt")
    assert as_player(organiser).get(disputes).json() == []
    assert as_player(organiser).post(url(match, "1/accept/"), {}, format="json").status_code == 409


def test_a_referee_accepts_a_disputed_transcript(posted: Callable[..., Any]) -> None:
    match, players = transcript_match("war")
    referee = MembershipFactory(club=match.competition.club).player
    match.competition.referees.add(referee)
    posted(match, players[0], table_record(match))
    as_player(players[1]).post(url(match, "1/dispute/"), {"note": "I misread a card"}, format="json")
    assert as_player(referee).get(f"/api/tournaments/{match.competition_id}/disputes/").status_code == 200
    response = as_player(referee).post(url(match, "1/accept/"), {"note": "checked the cards"}, format="json")
    assert response.status_code == 200
    assert [e["action"] for e in response.json()["events"]] == ["submit", "verify", "dispute", "accept"]
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
