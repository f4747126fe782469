"""Who hears of what (issue 24): each service of an event tells the right people, in words that name who and
where, in the event's own transaction; bots' matches tell no one."""

from __future__ import annotations

from typing import Any

import pytest

from league.joining import club_join
from league.models import BotVersion, Club, Membership, Player
from league.notifications.kinds import Kind
from league.notifications.models import Notification
from league.validation import bot_version_validate
from tests.factories import BotFactory, ClubFactory, EntrantFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.tournaments.helpers import game_played, match_result
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.models import Competition, Match, Transcript
from tournaments.services.challenges import challenge_accept, challenge_decline, challenge_issue, challenge_withdraw
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.services.results import match_record_result
from tournaments.services.transcripts import transcript_dispute

pytestmark = pytest.mark.django_db


def person(club: Club | None, username: str, role: str = Membership.Role.MEMBER) -> Player:
    player = PlayerFactory(user=UserFactory(username=username), display_name=username.capitalize())
    if club is not None:
        MembershipFactory(club=club, player=player, role=role)
    return player


def told(player: Player, kind: str | None = None) -> list[str]:
    rows = Notification.objects.filter(player=player).order_by("id")
    return [n.title for n in (rows.filter(kind=kind) if kind else rows)]


@pytest.fixture
def club() -> Club:
    return ClubFactory(name="Riverside", slug="riverside", joining=Club.Joining.REQUEST)


def test_a_join_request_reaches_the_organisers_only(club: Club) -> None:
    olga = person(club, "olga", Membership.Role.ORGANISER)
    max_ = person(club, "max")
    nia = person(None, "nia")
    club_join(club=club, player=nia, note="Ben sent me")
    (notification,) = Notification.objects.filter(kind=Kind.JOIN_REQUEST)
    assert notification.player == olga and notification.title == "Nia asks to join Riverside"
    assert "Ben sent me" in notification.body and notification.link == "/clubs/riverside/requests/"
    assert told(max_) == [] and notification.club == club


def ladder(club: Club, names: list[str]) -> tuple[Competition, dict[str, Any]]:
    organiser = person(club, "olga", Membership.Role.ORGANISER)
    competition = competition_create(
        club=club,
        created_by=organiser,
        name="Club ladder",
        game="1923",
        format="challenge_ladder",
        options={"mode": "set"},
    )
    people = {name: person(club, name) for name in names}
    entrants = {name: entrant_join(competition=competition, player=people[name]) for name in names}
    competition_start(competition=competition, order=[e.pk for e in entrants.values()])
    competition.refresh_from_db()
    return competition, {"people": people, "entrants": entrants}


def test_a_challenge_reaches_the_defender_and_its_answers_the_other_side(
    club: Club, django_capture_on_commit_callbacks: Any
) -> None:
    competition, cast = ladder(club, ["ann", "bob", "cat"])
    people, entrants = cast["people"], cast["entrants"]
    assert told(people["ann"], Kind.COMPETITION_STARTED) == ["Club ladder has started"]
    challenge_issue(
        competition=competition, challenger=entrants["cat"], defender=entrants["ann"], issued_by=people["cat"]
    )
    assert told(people["ann"], Kind.CHALLENGED) == ["Cat challenged you in Club ladder"]
    assert told(people["cat"], Kind.CHALLENGED) == [] and told(people["bob"], Kind.CHALLENGED) == []
    challenge_withdraw(competition=competition, number=1)
    assert told(people["ann"], Kind.CHALLENGE_ANSWERED) == ["Cat withdrew the challenge in Club ladder"]
    challenge_issue(
        competition=competition, challenger=entrants["cat"], defender=entrants["bob"], issued_by=people["cat"]
    )
    challenge_decline(competition=competition, number=2, defender=entrants["bob"])
    assert told(people["cat"], Kind.CHALLENGE_ANSWERED) == ["Your challenge in Club ladder is declined"]
    challenge_issue(
        competition=competition, challenger=entrants["bob"], defender=entrants["cat"], issued_by=people["bob"]
    )
    with django_capture_on_commit_callbacks(execute=True):
        challenge_accept(competition=competition, number=3, defender=entrants["cat"])
    assert told(people["bob"], Kind.CHALLENGE_ANSWERED) == ["Your challenge in Club ladder is accepted"]
    match = Match.objects.get(competition=competition)
    # The accepted challenge's match is ready at its table, for both.
    for name in ("bob", "cat"):
        (ready,) = Notification.objects.filter(player=people[name], kind=Kind.ROUND_PAIRED)
        assert ready.link == f"/play/matches/{match.pk}/"


def test_a_recorded_match_tells_its_people_how_it_ended_and_a_finished_competition_everyone(club: Club) -> None:
    organiser = person(club, "olga", Membership.Role.ORGANISER)
    competition = competition_create(club=club, created_by=organiser, name="Autumn war", game="war")
    ann, ben = person(club, "ann"), person(club, "ben")
    for player in (ann, ben):
        entrant_join(competition=competition, player=player)
    competition_start(competition=competition)
    assert told(ann, Kind.ROUND_PAIRED) == ["Round 1 of Autumn war: you play Ben"]
    match = competition.matches.get()
    seats = list(match.participants.order_by("seat").values_list("entrant__player_id", flat=True))
    result = match_result([game_played("war", 0, [0, 1], {"ranks": [1, 2], "scores": [0, 0], "rounds": 1})], 2)
    match_record_result(match=match, result=result)
    winner, loser = (ann, ben) if seats[0] == ann.pk else (ben, ann)
    assert told(winner, Kind.MATCH_RECORDED) == ["Won: round 1 of Autumn war"]
    assert told(loser, Kind.MATCH_RECORDED) == ["Lost: round 1 of Autumn war"]
    assert told(ann, Kind.COMPETITION_FINISHED) == ["Autumn war is finished"]


def test_a_bots_match_tells_no_one() -> None:
    competition = competition_create(
        club=ClubFactory(), created_by=PlayerFactory(), name="Bots", game="war", format="round_robin"
    )
    for _ in range(2):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = competition.matches.get()
    Notification.objects.all().delete()
    result = match_result([game_played("war", 0, [0, 1], {"ranks": [1, 2], "scores": [0, 0], "rounds": 1})], 2)
    match_record_result(match=match, result=result)
    assert set(Notification.objects.values_list("kind", flat=True)) == {Kind.COMPETITION_FINISHED}


def test_a_dispute_reaches_the_organisers_and_referees() -> None:
    ann, ben = (PlayerFactory(user=UserFactory(username=n), display_name=n.capitalize()) for n in ("ann", "ben"))
    match, _ = transcript_match("war", players=[ann, ben])
    club = match.competition.club
    olga = person(club, "olga", Membership.Role.ORGANISER)
    rita = person(club, "rita", Membership.Role.REFEREE)
    max_ = person(club, "max")
    transcript = Transcript.objects.create(
        match=match, number=1, submitted_by=ann, record=table_record(match), status=Transcript.Status.VERIFIED
    )
    transcript_dispute(transcript=transcript, player=ben, note="the last trick was mine")
    for settler in (olga, rita):
        assert told(settler, Kind.DISPUTE) == [f"Ben disputes a written-down game in {match.competition.name}"]
    assert told(max_, Kind.DISPUTE) == []
    assert "the last trick was mine" in Notification.objects.filter(kind=Kind.DISPUTE).first().body  # type: ignore[union-attr]


def test_a_version_that_fails_its_test_game_tells_its_owner_once(settings: Any) -> None:
    settings.BOT_HTTP_ALLOW_PRIVATE = True
    bot = BotFactory(game="1923", name="Lockstep")
    version = BotVersion.objects.create(bot=bot, number=1, kind=BotVersion.Kind.HTTP, url="http://127.0.0.1:9/")
    bot_version_validate(version_id=version.pk)
    bot_version_validate(version_id=version.pk)  # delivered twice
    (notification,) = Notification.objects.filter(kind=Kind.BOT_REFUSED)
    assert notification.player == bot.owner and notification.title == "Version 1 of Lockstep failed its test game"
    assert notification.link == f"/bots/{bot.pk}/" and notification.body.startswith("init_failure")


@pytest.mark.parametrize("people", [2, 6])
def test_telling_a_round_s_people_costs_the_same_queries_however_many_tables(
    club: Club, people: int, django_assert_num_queries: Any
) -> None:
    from tournaments import notices

    organiser = person(club, "olga", Membership.Role.ORGANISER)
    competition = competition_create(club=club, created_by=organiser, name="Big war", game="war")
    for n in range(people):
        entrant_join(competition=competition, player=person(club, f"p{n}"))
    competition_start(competition=competition)
    Notification.objects.all().delete()
    match_ids = list(competition.matches.values_list("pk", flat=True))
    # The seats, the people's channels and addresses (one statement), the rows; the club's webhooks (none), for every
    # round at once.
    with django_assert_num_queries(4):
        notices.matches_ready(match_ids)
    assert Notification.objects.filter(kind=Kind.ROUND_PAIRED).count() == people * (people - 1)
