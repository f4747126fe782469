"""A transcript on the real path: submitted over the API, verified by a `celery worker`, confirmed, recorded."""

from __future__ import annotations

from collections.abc import Callable

from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.models import Game, Match, Standing, Transcript
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]


def _client(user: object) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


def _status(transcript_id: int) -> Callable[[], bool]:
    return lambda: Transcript.objects.get(pk=transcript_id).status != Transcript.Status.SUBMITTED


def test_a_worker_verifies_submitted_transcripts_and_confirming_both_games_records_the_match(workers: Start) -> None:
    workers("w1")
    match, players = transcript_match("punk", people=2, games=2, options={"dummy": True})
    first, second = _client(players[0].user), _client(players[1].user)
    base = f"/api/matches/{match.pk}/transcripts/"
    submitted = [
        first.post(base, {"game_number": 0, "record": table_record(match, 0, seed=21)}, format="json"),
        second.post(base, {"game_number": 1, "record": table_record(match, 1, seed=22)}, format="json"),
    ]
    assert [r.status_code for r in submitted] == [201, 201]
    # A broken one is rejected by the worker too, and records nothing.
    broken = table_record(match, 0, seed=23)
    broken["actions"].pop()
    bad = first.post(base, {"game_number": 0, "record": broken}, format="json").json()
    for body in [r.json() for r in submitted] + [bad]:
        transcript_id = Transcript.objects.get(match=match, number=body["number"]).pk
        wait_for(_status(transcript_id), timeout=60, what=f"transcript {body['number']} to be verified")
    shown = first.get(base).json()
    assert [(t["number"], t["status"]) for t in shown] == [(1, "verified"), (2, "verified"), (3, "rejected")]
    assert shown[2]["reason"].endswith("but the game is not over")
    assert shown[0]["events"][1]["actor_name"] == "verifier"

    assert second.post(f"{base}1/confirm/").json()["status"] == "accepted"
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE and not Game.objects.filter(match=match).exists()
    assert first.post(f"{base}2/confirm/").json()["status"] == "accepted"
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.rated
    assert Game.objects.filter(match=match).count() == 2
    assert [s.played for s in Standing.objects.filter(competition=match.competition)] == [1, 1]
