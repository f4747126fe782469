"""A "your turn" at live tables (issue 24): told at once at a live pace, after a quiet while by correspondence;
once per turn, never a mail for a turn already played, and never a card or a seed in the words."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from engine.referee import LiveGame
from league.models import Player
from league.notifications.kinds import Kind
from league.notifications.mail import send_due_mail
from league.notifications.models import Notification
from league.notifications.services import notifications_held
from tests.tournaments.live_support import live_match, pick
from tournaments.live_selectors import Viewer, live_table, table_snapshot
from tournaments.models import LiveTable, Match
from tournaments.services.competitions import competition_cancel
from tournaments.services.live import live_clocks_enforce, live_move, live_turns_tell
from tournaments.services.live_turns import by_correspondence

pytestmark = pytest.mark.django_db

DAY = 86400
#: A correspondence pace: three days a decision, a week a game.
BY_POST = {"move_seconds": 3 * DAY, "game_seconds": 7 * DAY}


def table_for(match: Match, participant: int | None) -> dict[str, Any]:
    return live_table(snapshot=table_snapshot(match.pk), viewer=Viewer(participant))


def turns(player: Player) -> list[Notification]:
    return list(Notification.objects.filter(player=player, kind=Kind.YOUR_TURN).order_by("id"))


def with_mail(players: list[Player]) -> None:
    for player in players:
        player.user.email = f"{player.user.username}@example.org"
        player.user.save(update_fields=["email"])


def to_act(match: Match, players: list[Player]) -> list[Player]:
    return [player for index, player in enumerate(players) if table_for(match, index)["legal_actions"]]


def move(match: Match, players: list[Player], player: Player, rng: random.Random, move_id: str) -> None:
    table = table_for(match, players.index(player))
    live_move(
        match_id=match.pk, player=player, action=pick(table, rng), version=table["version"], client_move_id=move_id
    )


def secrets_of(match: Match) -> set[str]:
    """The seed, and every card code dealt in the current game (none may be in any notification)."""
    table = LiveTable.objects.filter(match=match).order_by("-number").first()
    assert table is not None
    game = LiveGame.loads(table.game)
    words = {str(match.seed), str(game.seed)}
    for seat in range(game.players):
        hand = game.observation(seat).get("hand") or []
        words.update(card for card in hand if isinstance(card, str) and len(card) == 2)
    return words


def assert_tells_nothing_hidden(match: Match) -> None:
    secrets = secrets_of(match)
    for notification in Notification.objects.filter(kind=Kind.YOUR_TURN):
        text = f"{notification.title} {notification.body}"
        assert not [secret for secret in secrets if f" {secret} " in f" {text} "], text


def test_a_move_tells_the_next_person_at_once_at_a_live_pace_in_plain_words() -> None:
    match, (alice, bob) = live_match("banter", name="Spring League", games=3)
    assert not by_correspondence(match.competition)
    first = to_act(match, [alice, bob])
    assert len(first) == 1
    leader = first[0]
    other = bob if leader == alice else alice
    (notice,) = turns(leader)
    assert turns(other) == []
    assert notice.title == f"Your turn against {other.display_name} in Spring League (game 1)"
    assert notice.body.startswith("Your time for this decision runs out ") and notice.body.endswith(" UTC.")
    assert notice.link == f"/play/matches/{match.pk}/"
    assert notice.club_id == match.competition.club_id
    assert_tells_nothing_hidden(match)
    move(match, [alice, bob], leader, random.Random(1), "m1")
    # The leader's turn is played: its notice is gone (never mailed); the other person's is there.
    assert turns(leader) == [] or to_act(match, [alice, bob]) == [leader]
    assert len(turns(other)) == (1 if other in to_act(match, [alice, bob]) else 0)
    assert_tells_nothing_hidden(match)


def test_a_whole_live_game_leaves_at_most_one_notice_each_and_no_mail(settings: Any) -> None:
    settings.NOTIFY_MAIL_GATHER_SECONDS = 0
    match, players = live_match("banter", games=2)
    with_mail(players)
    rng = random.Random(5)
    moves = 0
    while Match.objects.get(pk=match.pk).status == Match.Status.LIVE:
        acting = to_act(match, players)
        for player in players:
            assert len(turns(player)) == (1 if player in acting else 0)
        move(match, players, acting[0], rng, f"m{moves}")
        moves += 1
    assert moves > 10
    # Every turn was played as it came: nothing is left to mail, and the inbox holds no stale turns.
    assert not Notification.objects.filter(kind=Kind.YOUR_TURN).exists()
    assert send_due_mail() == 0 and mail.outbox == []


def test_simultaneous_choices_tell_both_and_a_choice_retires_only_its_own_notice() -> None:
    match, (alice, bob) = live_match("1923", options={"mode": "set"})
    assert len(turns(alice)) == len(turns(bob)) == 1
    bobs = turns(bob)[0].pk
    version = table_for(match, 0)["version"]
    live_move(match_id=match.pk, player=alice, action="LOCK", version=version, client_move_id="a1")
    assert turns(alice) == [] and [n.pk for n in turns(bob)] == [bobs]
    live_move(match_id=match.pk, player=bob, action="DRAW", version=version, client_move_id="b1")
    # A new step: Bob is to act again (Alice has locked). He was told and has waited on since: no second notice.
    assert to_act(match, [alice, bob]) == [bob]
    assert [n.pk for n in turns(bob)] == [bobs] and turns(alice) == []


def test_a_turn_not_played_is_mailed_and_one_played_is_not(settings: Any) -> None:
    settings.NOTIFY_MAIL_GATHER_SECONDS = 0
    match, (alice, bob) = live_match("1923", options={"mode": "set"}, name="Spring League")
    with_mail([alice, bob])
    # Told before their addresses were known: tell them again, as a new start would.
    Notification.objects.filter(kind=Kind.YOUR_TURN).update(mail_due=True)
    version = table_for(match, 0)["version"]
    live_move(match_id=match.pk, player=alice, action="LOCK", version=version, client_move_id="a1")
    assert send_due_mail() == 1
    (sent,) = mail.outbox
    assert sent.to == [bob.user.email]
    assert sent.subject == f"Your turn against {alice.display_name} in Spring League"
    assert f"/play/matches/{match.pk}/" in sent.body
    # Bob's turn passes after the mail (his time runs out): the mailed notice stays in his inbox, read, as the
    # mail he has does.
    assert live_clocks_enforce(now=timezone.now() + timedelta(seconds=301)) == 1
    (mailed,) = Notification.objects.filter(player=bob, kind=Kind.YOUR_TURN)
    assert mailed.mailed_at is not None and mailed.read_at is not None


def test_by_correspondence_nobody_is_told_at_once_but_after_a_quiet_while(settings: Any) -> None:
    settings.NOTIFY_TURN_QUIET_SECONDS = 600
    match, (alice, bob) = live_match("banter", name="Postal League", **BY_POST)
    assert by_correspondence(match.competition)
    assert not Notification.objects.filter(kind=Kind.YOUR_TURN).exists()
    (leader,) = to_act(match, [alice, bob])
    now = timezone.now()
    assert live_turns_tell(now=now + timedelta(seconds=60)) == 0
    assert live_turns_tell(now=now + timedelta(seconds=601)) == 1
    (notice,) = turns(leader)
    assert notice.title.startswith("Your turn against ") and "Postal League" in notice.title
    # Three days a move: the deadline named is days away.
    deadline = LiveTable.objects.get(match=match).deadline
    assert deadline is not None and deadline - now > timedelta(days=2, hours=23)
    assert f"{deadline:%a %d %b, %H:%M} UTC" in notice.body
    # Told once: the next sweeps find nothing to do.
    assert live_turns_tell(now=now + timedelta(seconds=1200)) == 0
    assert len(turns(leader)) == 1
    assert_tells_nothing_hidden(match)


def test_by_correspondence_a_turn_played_within_the_quiet_while_tells_no_one(settings: Any) -> None:
    settings.NOTIFY_TURN_QUIET_SECONDS = 600
    match, players = live_match("banter", **BY_POST)
    (leader,) = to_act(match, players)
    move(match, players, leader, random.Random(2), "m1")
    (second,) = to_act(match, players)
    table = LiveTable.objects.get(match=match)
    assert table.turn_notices == {}
    if second != leader:
        # The quiet while starts again for the next person, from their turn's start.
        assert table.tell_at == table.turn_started_at + timedelta(seconds=600)
    assert live_turns_tell(now=timezone.now() + timedelta(seconds=601)) == 1
    assert len(turns(second)) == 1
    if second != leader:
        assert turns(leader) == []


def test_a_sweep_with_nothing_due_and_a_sweep_after_the_match_make_nothing(settings: Any) -> None:
    settings.NOTIFY_TURN_QUIET_SECONDS = 0
    match, _ = live_match("banter", **BY_POST)
    competition_cancel(competition=match.competition)
    assert live_turns_tell(now=timezone.now() + timedelta(seconds=1)) == 0


def test_cancelling_a_competition_takes_back_the_notices_of_turns_that_will_never_come() -> None:
    match, _ = live_match("1923", options={"mode": "set"})
    assert Notification.objects.filter(kind=Kind.YOUR_TURN).count() == 2
    competition_cancel(competition=match.competition)
    assert not Notification.objects.filter(kind=Kind.YOUR_TURN).exists()


def test_while_notifications_are_held_a_table_tells_no_one() -> None:
    with notifications_held():
        live_match("1923", options={"mode": "set"})
    assert not Notification.objects.filter(kind=Kind.YOUR_TURN).exists()


def test_a_bot_s_move_passes_the_turn_to_the_person(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        match, (alice,) = live_match("banter", people=1, bots=1)
    rng = random.Random(4)
    for moves in range(6):
        if Match.objects.get(pk=match.pk).status != Match.Status.LIVE:
            break
        # The bot has moved whenever the table waits on Alice: she has exactly one notice of it.
        assert len(turns(alice)) == 1
        with django_capture_on_commit_callbacks(execute=True):
            move(match, [alice], alice, rng, f"a{moves}")


def test_by_correspondence_a_person_who_looked_at_the_table_since_their_turn_began_is_not_told(
    settings: Any,
) -> None:
    settings.NOTIFY_TURN_QUIET_SECONDS = 600
    match, players = live_match("banter", **BY_POST)
    (leader,) = to_act(match, players)
    client = Client()
    client.force_login(leader.user)
    assert client.get(f"/api/matches/{match.pk}/table/").status_code == 200
    assert live_turns_tell(now=timezone.now() + timedelta(seconds=601)) == 0
    assert turns(leader) == []
    # Counted as told: later sweeps leave the turn alone.
    assert LiveTable.objects.get(match=match).tell_at is None


def test_beat_runs_the_quiet_turn_sweep(settings: Any) -> None:
    from config.celery import app
    from tournaments.tasks import tell_quiet_turns

    schedule = settings.CELERY_BEAT_SCHEDULE["turn-notices"]
    assert schedule["task"] == tell_quiet_turns.name and tell_quiet_turns.name in app.tasks
    settings.NOTIFY_TURN_QUIET_SECONDS = 0
    match, players = live_match("banter", **BY_POST)
    (leader,) = to_act(match, players)
    tell_quiet_turns()
    assert len(turns(leader)) == 1


def test_a_correspondence_clock_runs_out_after_days_not_before() -> None:
    match, players = live_match("banter", **BY_POST)
    (leader,) = to_act(match, players)
    started = LiveTable.objects.get(match=match).turn_started_at
    assert live_clocks_enforce(now=started + timedelta(days=2, hours=23, minutes=59)) == 0
    assert Match.objects.get(pk=match.pk).status == Match.Status.LIVE
    # Her clock as the table shows it: nearly three days for the move, nearly seven for the game.
    seat = table_for(match, players.index(leader))
    clock = next(s["clock"] for s in seat["seats"] if s["seat"] == seat["seat"])
    assert clock["move_ms"] > 2 * DAY * 1000 and clock["game_ms"] > 6 * DAY * 1000
    assert live_clocks_enforce(now=started + timedelta(days=3, seconds=1)) == 1
    assert Match.objects.get(pk=match.pk).status == Match.Status.DONE


def test_a_challenge_s_match_expiring_unplayed_takes_back_its_notices() -> None:
    from tests.tournaments.test_challenges import Ladder, call
    from tournaments.models import Challenge
    from tournaments.services.challenges import challenges_enforce_deadlines

    ladder = Ladder(game="1923", options={"mode": "set"})
    (ann, ann_player), (bob, bob_player) = ladder.person("Ann"), ladder.person("Bob")
    ladder.start(order=[ann, bob])
    number = ladder.challenge(bob_player, bob, ann).json()["number"]
    assert call(ann_player, "post", f"{ladder.url}/challenges/{number}/accept/").status_code == 200
    assert Notification.objects.filter(kind=Kind.YOUR_TURN).exists()
    Challenge.objects.filter(competition_id=ladder.id, number=number).update(deadline=timezone.now())
    assert challenges_enforce_deadlines()["expired"] == 1
    assert not Notification.objects.filter(kind=Kind.YOUR_TURN).exists()
