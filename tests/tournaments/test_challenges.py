"""The challenge ladder through the API (issue 13): places, challenges, their matches, forfeits and history.

Bots' matches are played at once (eager tasks here; tests/e2e/test_challenge_ladder.py uses real
workers); people's at live tables, played through the live service. Every refusal is a 4xx that says
what the ladder allows.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.db import connection
from django.utils import timezone

from league.models import Club, Membership, Player
from league.notifications.kinds import Kind
from league.notifications.mail import send_due_mail
from league.notifications.models import Notification
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    MembershipFactory,
    PlayerFactory,
)
from tests.league.test_api_support import client_for, results
from tests.tournaments.test_live import play_out
from tournaments.models import Challenge, ChallengeSide, Competition, Entrant, Match, MatchParticipant, Standing
from tournaments.services.challenges import challenges_enforce_deadlines
from tournaments.services.live import live_clocks_enforce

pytestmark = pytest.mark.django_db


def call(player: Player | None, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    client = client_for(player.user if player else None)
    return getattr(client, method)(url, body or {}, format="json")


class Ladder:
    """A club, its organiser, and a challenge ladder created and run through the API."""

    def __init__(self, game: str = "war", players_per_match: int = 2, **settings: Any) -> None:
        membership = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory(joining=Club.Joining.OPEN))
        self.club, self.organiser = membership.club, membership.player
        body = {
            "club": self.club.pk,
            "name": "Club ladder",
            "game": game,
            "format": "challenge_ladder",
            "players_per_match": players_per_match,
            **settings,
        }
        created = call(self.organiser, "post", "/api/tournaments/", body)
        assert created.status_code == 201, created.json()
        self.id: int = created.json()["id"]
        self.url = f"/api/tournaments/{self.id}"

    def bot(self, name: str, owner: Player | None = None) -> Entrant:
        owner = owner or self.organiser
        version = BotVersionFactory(bot=BotFactory(owner=owner, name=name, game=self.competition.game), number=1)
        joined = call(owner, "post", f"{self.url}/entrants/", {"bot_version": version.pk})
        assert joined.status_code == 201, joined.json()
        return Entrant.objects.get(pk=joined.json()["id"])

    def person(self, name: str) -> tuple[Entrant, Player]:
        player = PlayerFactory(display_name=name)
        MembershipFactory(club=self.club, player=player)
        joined = call(player, "post", f"{self.url}/entrants/", {"player": player.pk})
        assert joined.status_code == 201, joined.json()
        return Entrant.objects.get(pk=joined.json()["id"]), player

    @property
    def competition(self) -> Competition:
        return Competition.objects.get(pk=self.id)

    def start(self, order: list[Entrant] | None = None) -> None:
        body = {} if order is None else {"order": [e.pk for e in order]}
        started = call(self.organiser, "post", f"{self.url}/start/", body)
        assert started.status_code == 200, started.json()

    def places(self) -> list[str]:
        """The names on the ladder, top first, as the standings API gives them."""
        rows = results(call(None, "get", f"{self.url}/standings/"))
        return [row["entrant"]["name"] for row in rows if row["entrant"]["position"] is not None]

    def challenge(self, by: Player, challenger: Entrant, defender: Entrant | None = None) -> Any:
        body = {"challenger": challenger.pk, "defender": None if defender is None else defender.pk}
        return call(by, "post", f"{self.url}/challenges/", body)


def ranks_of(match_id: int) -> dict[str, int]:
    rows = MatchParticipant.objects.filter(match_id=match_id).select_related("entrant")
    return {row.entrant.name: row.rank for row in rows if row.rank is not None}


# --- Starting places -----------------------------------------------------------------------------


def test_a_ladder_starts_in_the_organiser_s_order_and_newcomers_join_at_the_bottom(
    django_capture_on_commit_callbacks: Any,
) -> None:
    ladder = Ladder()
    a, b, c = ladder.bot("a"), ladder.bot("b"), ladder.bot("c")
    ladder.start(order=[c, a, b])
    assert ladder.places() == ["c v1", "a v1", "b v1"]
    # The join publishes a new results version once it commits: the cached table is not served after it.
    with django_capture_on_commit_callbacks(execute=True):
        late, _ = ladder.person("Dora")
    assert late.position == 4
    assert ladder.places() == ["c v1", "a v1", "b v1", "Dora"]
    assert ladder.competition.status == Competition.Status.RUNNING


def test_a_start_order_must_list_every_entrant_once() -> None:
    ladder = Ladder()
    a, b, _ = ladder.bot("a"), ladder.bot("b"), ladder.bot("c")
    refused = call(ladder.organiser, "post", f"{ladder.url}/start/", {"order": [a.pk, b.pk, a.pk]})
    assert refused.status_code == 400
    assert refused.json() == {"order": ["list every entrant's id exactly once, top place first"]}
    assert ladder.competition.status == Competition.Status.OPEN


def test_without_an_order_the_ladder_starts_by_the_entrants_ratings_in_the_club() -> None:
    ladder = Ladder()
    weak, strong = ladder.bot("weak"), ladder.bot("strong")
    ladder.bot("new")
    # An earlier competition of the club rated them: strong above weak; "new" has none.
    earlier = CompetitionFactory(club=ladder.club, game="war")
    for entrant, ordinal in ((weak, 1.0), (strong, 9.0)):
        old = Entrant.objects.create(competition=earlier, bot_version=entrant.bot_version, name=entrant.name)
        Standing.objects.create(competition=earlier, entrant=old, played=3, ordinal=ordinal)
    ladder.start()
    assert ladder.places() == ["strong v1", "weak v1", "new v1"]


# --- Bots challenge ------------------------------------------------------------------------------


def test_a_bot_challenge_is_played_at_once_and_the_places_follow_its_result(
    django_capture_on_commit_callbacks: Any,
) -> None:
    ladder = Ladder()
    bots = [ladder.bot(name) for name in "abcde"]
    ladder.start(order=bots)
    with django_capture_on_commit_callbacks(execute=True):
        issued = ladder.challenge(ladder.organiser, bots[4], bots[1])
    assert issued.status_code == 201, issued.json()
    challenge = Challenge.objects.get(competition_id=ladder.id, number=issued.json()["number"])
    assert challenge.status == Challenge.Status.PLAYED, challenge.outcome
    ranks = ranks_of(challenge.match_id)
    if ranks["e v1"] < ranks["b v1"]:
        expected = ["a v1", "e v1", "b v1", "c v1", "d v1"]
    else:
        expected = ["a v1", "b v1", "c v1", "d v1", "e v1"]
    assert ladder.places() == expected
    shown = call(None, "get", f"{ladder.url}/challenges/{challenge.number}/").json()
    assert [p["name"] for p in shown["places_before"]] == ["b v1", "c v1", "d v1", "e v1"]
    assert [p["name"] for p in shown["places_after"]] == expected[1:]
    assert shown["places_before"][0]["place"] == 2
    assert shown["status"] == "played" and shown["match"] == challenge.match_id
    assert shown["outcome"].startswith("won by ")


def test_bots_climb_a_ladder_challenge_after_challenge(django_capture_on_commit_callbacks: Any) -> None:
    """The places are always those that replaying the history's results gives."""
    ladder = Ladder()
    bots = [ladder.bot(name) for name in "abcdef"]
    ladder.start(order=bots)
    expected = [b.name for b in bots]
    for round_ in range(12):
        order = ladder.places()
        # The lowest bot challenges the one up to three places above it, by turns.
        challenger = Entrant.objects.get(competition_id=ladder.id, name=order[-1 - round_ % 3])
        here = order.index(challenger.name)
        defender = Entrant.objects.get(competition_id=ladder.id, name=order[max(0, here - 1 - round_ % 3)])
        with django_capture_on_commit_callbacks(execute=True):
            issued = ladder.challenge(ladder.organiser, challenger, defender)
        assert issued.status_code == 201, issued.json()
        challenge = Challenge.objects.get(competition_id=ladder.id, number=issued.json()["number"])
        ranks = ranks_of(challenge.match_id)
        if ranks[challenger.name] < ranks[defender.name]:
            expected.remove(challenger.name)
            expected.insert(expected.index(defender.name), challenger.name)
        assert ladder.places() == expected
    history = results(call(None, "get", f"{ladder.url}/challenges/"))
    assert [c["number"] for c in history] == list(range(12, 0, -1))
    assert all(c["status"] == "played" for c in history)


# --- People challenge ---------------------------------------------------------------------------


def test_a_person_challenges_plays_at_a_live_table_and_the_places_follow(
    django_capture_on_commit_callbacks: Any,
) -> None:
    ladder = Ladder(game="1923", options={"mode": "set"})
    (ann, ann_player), (bob, bob_player), (cat, cat_player) = (ladder.person(n) for n in ("Ann", "Bob", "Cat"))
    ladder.start(order=[ann, bob, cat])
    issued = ladder.challenge(cat_player, cat, ann)
    assert issued.status_code == 201, issued.json()
    number = issued.json()["number"]
    assert issued.json()["status"] == "issued"
    # Only the defender's side answers.
    assert call(bob_player, "post", f"{ladder.url}/challenges/{number}/accept/").status_code == 403
    with django_capture_on_commit_callbacks(execute=True):
        accepted = call(ann_player, "post", f"{ladder.url}/challenges/{number}/accept/")
    assert accepted.status_code == 200, accepted.json()
    assert accepted.json()["status"] == "accepted"
    match = Match.objects.get(pk=accepted.json()["match"])
    assert match.status == Match.Status.LIVE
    seated = {p.entrant.name: p for p in match.participants.select_related("entrant")}
    players = [cat_player, ann_player] if seated["Cat"].seat == 0 else [ann_player, cat_player]
    with django_capture_on_commit_callbacks(execute=True):
        play_out(match, players)
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
    ranks = ranks_of(match.pk)
    won = ranks["Cat"] < ranks["Ann"]
    assert ladder.places() == (["Cat", "Ann", "Bob"] if won else ["Ann", "Bob", "Cat"])
    assert Challenge.objects.get(competition_id=ladder.id, number=number).status == Challenge.Status.PLAYED


def test_a_defender_out_of_time_at_the_table_loses_the_place(django_capture_on_commit_callbacks: Any) -> None:
    ladder = Ladder(game="1923", options={"mode": "set"}, move_seconds=60)
    (ann, ann_player), (bob, bob_player) = ladder.person("Ann"), ladder.person("Bob")
    ladder.start(order=[ann, bob])
    number = ladder.challenge(bob_player, bob, ann).json()["number"]
    with django_capture_on_commit_callbacks(execute=True):
        call(ann_player, "post", f"{ladder.url}/challenges/{number}/accept/")
        # Nobody moves: past the clock the referee forfeits the first person it waits on.
        live_clocks_enforce(now=timezone.now() + timedelta(hours=2))
    challenge = Challenge.objects.get(competition_id=ladder.id, number=number)
    assert challenge.status == Challenge.Status.PLAYED
    ranks = ranks_of(challenge.match_id)
    assert ladder.places() == (["Bob", "Ann"] if ranks["Bob"] < ranks["Ann"] else ["Ann", "Bob"])


# --- Refusals -----------------------------------------------------------------------------------


def test_challenging_out_of_reach_downwards_or_oneself_is_a_400_that_says_why() -> None:
    ladder = Ladder(challenge_reach=2)
    bots = [ladder.bot(name) for name in "abcd"]
    ladder.start(order=bots)
    far = ladder.challenge(ladder.organiser, bots[3], bots[0])
    assert far.status_code == 400
    assert far.json() == {
        "defender": ["a v1 is 3 places above d v1: this ladder lets an entrant challenge up to 2 places above"]
    }
    down = ladder.challenge(ladder.organiser, bots[1], bots[2])
    assert down.status_code == 400
    assert down.json() == {"defender": ["c v1 is below b v1 (place 3, not above 2)"]}
    itself = ladder.challenge(ladder.organiser, bots[1], bots[1])
    assert itself.status_code == 400 and itself.json() == {"defender": ["an entrant cannot challenge itself"]}
    nobody = ladder.challenge(ladder.organiser, bots[1])
    assert nobody.status_code == 400 and nobody.json() == {"defender": ["name the entrant you challenge"]}
    stranger = ladder.challenge(ladder.organiser, bots[1], Ladder().bot("x"))
    assert stranger.status_code == 400 and "is not in this competition" in stranger.json()["defender"][0]
    assert not Challenge.objects.exists()


def test_challenging_someone_already_in_a_challenge_is_a_409_naming_it() -> None:
    ladder = Ladder()
    (ann, _), (bob, _), (cat, cat_player), (dan, dan_player) = (ladder.person(n) for n in ("Ann", "Bob", "Cat", "Dan"))
    ladder.start(order=[ann, bob, cat, dan])
    first = ladder.challenge(cat_player, cat, ann)
    assert first.status_code == 201
    busy_defender = ladder.challenge(dan_player, dan, ann)
    assert busy_defender.status_code == 409
    assert busy_defender.json() == {"detail": "Ann is already in challenge 1"}
    busy_challenger = ladder.challenge(dan_player, dan, cat)
    assert busy_challenger.status_code == 409 and busy_challenger.json() == {"detail": "Cat is already in challenge 1"}
    # Bob is free, and Dan may challenge him.
    assert ladder.challenge(dan_player, dan, bob).status_code == 201


def test_only_an_entrant_s_side_or_an_organiser_challenges_for_it() -> None:
    ladder = Ladder()
    (ann, _), (bob, _) = ladder.person("Ann"), ladder.person("Bob")
    ladder.start(order=[ann, bob])
    outsider = PlayerFactory()
    refused = ladder.challenge(outsider, bob, ann)
    assert refused.status_code == 403
    assert refused.json() == {"detail": "you may challenge for yourself or your own bots; organisers for anyone"}
    assert ladder.challenge(None, bob, ann).status_code == 401
    assert ladder.challenge(ladder.organiser, bob, ann).status_code == 201


def test_challenges_belong_to_a_running_challenge_ladder() -> None:
    ladder = Ladder()
    a, b = ladder.bot("a"), ladder.bot("b")
    not_started = ladder.challenge(ladder.organiser, b, a)
    assert not_started.status_code == 409
    assert not_started.json() == {"detail": "the ladder is open: challenges are made while it is running"}
    league = call(
        ladder.organiser,
        "post",
        "/api/tournaments/",
        {"club": ladder.club.pk, "name": "League", "game": "war"},
    ).json()
    refused = call(ladder.organiser, "post", f"/api/tournaments/{league['id']}/challenges/", {"challenger": 1})
    assert refused.status_code == 400


# --- Declining, withdrawing, deadlines -----------------------------------------------------------


def test_a_declined_challenge_is_the_defender_s_forfeit_and_cannot_be_accepted_after() -> None:
    ladder = Ladder()
    (ann, ann_player), (bob, _), (cat, cat_player) = (ladder.person(n) for n in ("Ann", "Bob", "Cat"))
    ladder.start(order=[ann, bob, cat])
    number = ladder.challenge(cat_player, cat, ann).json()["number"]
    declined = call(ann_player, "post", f"{ladder.url}/challenges/{number}/decline/")
    assert declined.status_code == 200, declined.json()
    assert declined.json()["status"] == "declined"
    assert declined.json()["outcome"] == "Ann declined: Ann forfeited"
    assert ladder.places() == ["Cat", "Ann", "Bob"]
    late = call(ann_player, "post", f"{ladder.url}/challenges/{number}/accept/")
    assert late.status_code == 409 and late.json() == {"detail": "challenge 1 is declined"}
    # Decided: everyone is free again.
    assert not ChallengeSide.objects.filter(open=True).exists()


def test_a_challenger_may_withdraw_before_the_answer_and_nobody_moves() -> None:
    ladder = Ladder()
    (ann, ann_player), (bob, bob_player) = ladder.person("Ann"), ladder.person("Bob")
    ladder.start(order=[ann, bob])
    number = ladder.challenge(bob_player, bob, ann).json()["number"]
    assert call(ann_player, "post", f"{ladder.url}/challenges/{number}/withdraw/").status_code == 403
    withdrawn = call(bob_player, "post", f"{ladder.url}/challenges/{number}/withdraw/")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    assert ladder.places() == ["Ann", "Bob"]
    again = call(bob_player, "post", f"{ladder.url}/challenges/{number}/withdraw/")
    assert again.status_code == 409 and again.json() == {"detail": "challenge 1 is withdrawn"}


def test_past_the_deadline_an_unanswered_challenge_is_forfeited_on_the_beat() -> None:
    ladder = Ladder(challenge_days=3)
    (ann, ann_player), (bob, bob_player) = ladder.person("Ann"), ladder.person("Bob")
    ladder.start(order=[ann, bob])
    issued = ladder.challenge(bob_player, bob, ann).json()
    challenge = Challenge.objects.get(competition_id=ladder.id, number=issued["number"])
    assert challenge.deadline - challenge.issued_at == timedelta(days=3)
    assert challenges_enforce_deadlines()["forfeited"] == 0  # not yet
    Challenge.objects.filter(pk=challenge.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert challenges_enforce_deadlines()["forfeited"] == 1
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.FORFEITED
    assert challenge.outcome == "not accepted by the deadline: Ann forfeited"
    assert ladder.places() == ["Bob", "Ann"]
    late = call(ann_player, "post", f"{ladder.url}/challenges/{challenge.number}/accept/")
    assert late.status_code == 409 and late.json() == {"detail": "challenge 1 is forfeited"}
    assert challenges_enforce_deadlines() == {"reminded": 0, "forfeited": 0, "expired": 0}


def test_an_accepted_challenge_not_played_by_the_deadline_expires_and_nobody_moves() -> None:
    ladder = Ladder(people_play="transcript")
    (ann, ann_player), (bob, bob_player) = ladder.person("Ann"), ladder.person("Bob")
    ladder.start(order=[ann, bob])
    number = ladder.challenge(bob_player, bob, ann).json()["number"]
    accepted = call(ann_player, "post", f"{ladder.url}/challenges/{number}/accept/").json()
    match = Match.objects.get(pk=accepted["match"])
    assert match.status == Match.Status.LIVE  # waiting for its transcript
    Challenge.objects.filter(competition_id=ladder.id, number=number).update(deadline=timezone.now())
    assert challenges_enforce_deadlines()["expired"] == 1
    shown = call(None, "get", f"{ladder.url}/challenges/{number}/").json()
    assert shown["status"] == "expired"
    assert shown["outcome"] == "not played by the deadline: nobody moves"
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert ladder.places() == ["Ann", "Bob"]
    late = call(ann_player, "post", f"{ladder.url}/challenges/{number}/decline/")
    assert late.status_code == 409 and late.json() == {"detail": "challenge 1 is expired"}


def test_defenders_who_have_not_answered_are_reminded_once_before_the_deadline() -> None:
    ladder = Ladder(challenge_days=2)
    (ann, ann_player), (bob, bob_player) = ladder.person("Ann"), ladder.person("Bob")
    ann_player.user.email = "ann@example.org"
    ann_player.user.save()
    ladder.start(order=[ann, bob])
    number = ladder.challenge(bob_player, bob, ann).json()["number"]
    assert challenges_enforce_deadlines()["reminded"] == 0  # 48 hours left; reminders go 24 hours before
    Challenge.objects.filter(number=number).update(deadline=timezone.now() + timedelta(hours=5))
    assert challenges_enforce_deadlines()["reminded"] == 1
    assert challenges_enforce_deadlines()["reminded"] == 0
    # A notification like any other: in Ann's inbox, and in her next mail (league/notifications/mail.py).
    (reminder,) = Notification.objects.filter(kind=Kind.CHALLENGE_DEADLINE)
    assert reminder.player == ann_player and reminder.mail_due
    assert reminder.title.startswith("Answer Bob's challenge in Club ladder by ")
    assert send_due_mail(now=timezone.now() + timedelta(hours=1)) == 1
    (sent,) = mail.outbox
    assert sent.to == ["ann@example.org"]
    assert "Answer Bob's challenge in Club ladder" in sent.body
    assert call(None, "get", f"{ladder.url}/challenges/{number}/").json()["reminded_at"] is not None


# --- Multiplayer --------------------------------------------------------------------------------


def test_a_multiplayer_challenge_plays_the_entrants_directly_above_and_reorders_them_by_the_match(
    django_capture_on_commit_callbacks: Any,
) -> None:
    ladder = Ladder(game="punk", players_per_match=3)
    bots = [ladder.bot(name) for name in "abcde"]
    ladder.start(order=bots)
    too_high = ladder.challenge(ladder.organiser, bots[1])
    assert too_high.status_code == 400
    assert too_high.json() == {"challenger": ["b v1 is in place 2: a challenge in this game needs 2 entrants above it"]}
    with django_capture_on_commit_callbacks(execute=True):
        issued = ladder.challenge(ladder.organiser, bots[4])
    assert issued.status_code == 201, issued.json()
    body = issued.json()
    assert [s["entrant"]["name"] for s in body["sides"]] == ["c v1", "d v1", "e v1"]
    challenge = Challenge.objects.get(competition_id=ladder.id, number=body["number"])
    assert challenge.status == Challenge.Status.PLAYED
    ranks = ranks_of(challenge.match_id)
    block = sorted(["c v1", "d v1", "e v1"], key=lambda name: (ranks[name], "cde".index(name[0])))
    assert ladder.places() == ["a v1", "b v1", *block]


# --- Leaving, cancelling, racing ----------------------------------------------------------------


def test_leaving_a_running_ladder_closes_the_gap_but_not_during_a_challenge() -> None:
    ladder = Ladder()
    (ann, ann_player), (bob, bob_player), (cat, _) = (ladder.person(n) for n in ("Ann", "Bob", "Cat"))
    ladder.start(order=[ann, bob, cat])
    number = ladder.challenge(bob_player, bob, ann).json()["number"]
    busy = call(ann_player, "delete", f"{ladder.url}/entrants/{ann.pk}/")
    assert busy.status_code == 409
    assert busy.json() == {"detail": "Ann is in an open challenge: it can leave once that is decided"}
    call(bob_player, "post", f"{ladder.url}/challenges/{number}/withdraw/")
    assert call(ann_player, "delete", f"{ladder.url}/entrants/{ann.pk}/").status_code == 204
    assert ladder.places() == ["Bob", "Cat"]
    ann.refresh_from_db()
    assert ann.left_at is not None and ann.position is None
    # Ann's standings row stays, after those with a place.
    rows = results(call(None, "get", f"{ladder.url}/standings/"))
    assert [row["entrant"]["name"] for row in rows] == ["Bob", "Cat", "Ann"]


def test_cancelling_the_ladder_closes_its_open_challenges() -> None:
    ladder = Ladder()
    (ann, _), (bob, bob_player) = ladder.person("Ann"), ladder.person("Bob")
    ladder.start(order=[ann, bob])
    number = ladder.challenge(bob_player, bob, ann).json()["number"]
    assert call(ladder.organiser, "post", f"{ladder.url}/cancel/").status_code == 200
    challenge = Challenge.objects.get(competition_id=ladder.id, number=number)
    assert challenge.status == Challenge.Status.CANCELLED
    assert not ChallengeSide.objects.filter(open=True).exists()


@pytest.mark.django_db(transaction=True)
def test_two_challenges_racing_for_one_defender_give_one_challenge_and_one_409() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    ladder = Ladder()
    (ann, _), (bob, bob_player), (cat, cat_player) = (ladder.person(n) for n in ("Ann", "Bob", "Cat"))
    ladder.start(order=[ann, bob, cat])
    answers: list[int] = []
    start = threading.Barrier(2)

    def challenge(player: Player, challenger: Entrant) -> None:
        start.wait()
        answers.append(ladder.challenge(player, challenger, ann).status_code)
        connection.close()

    threads = [
        threading.Thread(target=challenge, args=(bob_player, bob)),
        threading.Thread(target=challenge, args=(cat_player, cat)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [201, 409]
    assert Challenge.objects.filter(competition_id=ladder.id).count() == 1
