"""A competition's named organisers and referees hold their powers only while members of its club
(issue 21, finding 4): removed, or gone, they can no longer change, enter, cancel or settle anything."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from league.joining import club_remove_member
from league.models import Club, Membership, Player
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, MembershipFactory, PlayerFactory
from tests.league.test_api_support import client_for
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.models import Competition, Match, Transcript
from tournaments.selectors import competition_organiser
from tournaments.services.competitions import competition_update
from tournaments.services.transcripts import transcript_settler, transcript_submit

pytestmark = pytest.mark.django_db

Capture = Callable[..., Any]


def remove(club: Club, player: Player) -> None:
    """The club's organiser removes ``player`` through the API, as in the drill."""
    organiser = Membership.objects.filter(club=club, role=Membership.Role.ORGANISER).exclude(player=player).first()
    if organiser is None:
        organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER)
    membership = Membership.objects.get(club=club, player=player)
    answer = client_for(organiser.player.user).delete(f"/api/clubs/{club.pk}/members/{membership.pk}/")
    assert answer.status_code == 204


def named_organiser_competition() -> tuple[Competition, Player, Player]:
    """A competition a plain member created (so named its organiser) in a club that lets members create them."""
    club = ClubFactory(competition_creators=Club.CompetitionCreators.MEMBERS)
    MembershipFactory(club=club, role=Membership.Role.ORGANISER)
    creator, other = MembershipFactory(club=club).player, MembershipFactory(club=club).player
    made = client_for(creator.user).post(
        "/api/tournaments/", {"club": club.pk, "name": "Friday cup", "game": "war"}, format="json"
    )
    assert made.status_code == 201 and made.json()["organisers"] == [creator.pk]
    return Competition.objects.get(pk=made.json()["id"]), creator, other


def test_a_named_organiser_runs_the_competition_while_a_member() -> None:
    competition, creator, _ = named_organiser_competition()
    renamed = client_for(creator.user).patch(f"/api/tournaments/{competition.pk}/", {"name": "Mine"}, format="json")
    assert renamed.status_code == 200


def test_a_removed_named_organiser_can_no_longer_change_enter_or_cancel() -> None:
    competition, creator, other = named_organiser_competition()
    version = BotVersionFactory(bot=BotFactory(owner=other))
    remove(competition.club, creator)
    client = client_for(creator.user)
    base = f"/api/tournaments/{competition.pk}/"
    assert client.patch(base, {"name": "Hijacked"}, format="json").status_code == 403
    assert client.post(f"{base}entrants/", {"player": other.pk}, format="json").status_code == 403
    assert client.post(f"{base}entrants/", {"bot_version": version.pk}, format="json").status_code == 403
    assert client.post(f"{base}cancel/").status_code == 403
    competition.refresh_from_db()
    assert (competition.name, competition.status, competition.entrants.count()) == (
        "Friday cup",
        Competition.Status.OPEN,
        0,
    )
    # And the API no longer lists them: names go with the membership.
    assert client_for().get(base).json()["organisers"] == []


def test_rejoining_the_club_does_not_give_the_names_back() -> None:
    competition, creator, _ = named_organiser_competition()
    Club.objects.filter(pk=competition.club_id).update(joining=Club.Joining.OPEN)
    remove(competition.club, creator)
    assert client_for(creator.user).post(f"/api/clubs/{competition.club_id}/join/").status_code == 201
    patched = client_for(creator.user).patch(f"/api/tournaments/{competition.pk}/", {"name": "Back"}, format="json")
    assert patched.status_code == 403


def test_a_name_left_on_a_competition_gives_an_outsider_no_power() -> None:
    # A naming that raced a removal (or any row written behind the services' back): the one check still says no.
    competition, _, _ = named_organiser_competition()
    outsider = PlayerFactory()
    competition.organisers.add(outsider)
    competition.referees.add(outsider)
    assert competition_organiser(competition=competition, player=outsider) is False
    assert transcript_settler(competition=competition, player=outsider) is False
    answer = client_for(outsider.user).post(f"/api/tournaments/{competition.pk}/cancel/")
    assert answer.status_code == 403


def test_a_removed_named_referee_cannot_confirm_a_transcript_for_everyone(
    django_capture_on_commit_callbacks: Capture,
) -> None:
    match, players = transcript_match("war")
    competition = match.competition
    organiser = MembershipFactory(club=competition.club, role=Membership.Role.ORGANISER).player
    referee = MembershipFactory(club=competition.club).player
    named = client_for(organiser.user).patch(
        f"/api/tournaments/{competition.pk}/", {"referees": [referee.pk]}, format="json"
    )
    assert named.status_code == 200 and named.json()["referees"] == [referee.pk]
    with django_capture_on_commit_callbacks(execute=True):
        transcript = transcript_submit(match=match, player=players[0], game_number=0, record=table_record(match))
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.VERIFIED
    remove(competition.club, referee)
    refused = client_for(referee.user).post(f"/api/matches/{match.pk}/transcripts/{transcript.number}/confirm/")
    assert refused.status_code == 403
    transcript.refresh_from_db()
    match.refresh_from_db()
    assert transcript.status == Transcript.Status.VERIFIED
    assert match.status == Match.Status.LIVE and not match.games.exists()
    assert client_for().get(f"/api/tournaments/{competition.pk}/").json()["referees"] == []


@pytest.mark.django_db(transaction=True)
def test_a_referee_named_while_being_removed_does_not_stay_named() -> None:
    """Review finding 1.8: naming referees reads the club's roll; a removal landing after that read, before the
    naming commits, must either wait for it (and then take the name away) or be seen (and refuse the name)."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    competition, _, referee = named_organiser_competition()
    club = competition.club
    checked, removed = threading.Event(), threading.Event()
    answers: dict[str, Any] = {}

    def name_referee() -> None:
        try:
            # The naming's transaction held open past its membership check, as a slow request's would be.
            with transaction.atomic():
                competition_update(competition=competition, referees=[referee])
                checked.set()
                answers["removal_waited"] = not removed.wait(timeout=1.0)
        finally:
            connection.close()

    def remove_referee() -> None:
        try:
            checked.wait(timeout=10)
            club_remove_member(club=club, player=referee)
            removed.set()
        finally:
            connection.close()

    threads = [threading.Thread(target=name_referee), threading.Thread(target=remove_referee)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not Membership.objects.filter(club=club, player=referee).exists()
    assert list(Competition.objects.get(pk=competition.pk).referees.all()) == []
    assert answers["removal_waited"], "the removal did not wait for the membership row the naming read"
