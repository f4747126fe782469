"""Transcripts of games played with real cards: submitted, refereed by the engine, confirmed, recorded once."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import close_old_connections, connection

from engine.match import seating_for
from league.models import Membership, Player
from league.ratings import Skill, rate
from tests.factories import MembershipFactory, PlayerFactory
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.models import Competition, Game, Match, Standing, Transcript, TranscriptConfirmation
from tournaments.services.transcripts import (
    TranscriptConflict,
    competition_disputes,
    transcript_accept,
    transcript_confirm,
    transcript_dispute,
    transcript_submit,
    transcript_verify,
    transcript_void,
    transcripts_resend_stale,
)

pytestmark = pytest.mark.django_db

Capture = Callable[..., Any]


@pytest.fixture
def submit(django_capture_on_commit_callbacks: Capture) -> Callable[..., Transcript]:
    """Submit and let the (eager) verifier task run after commit, as a worker would."""

    def do(match: Match, player: Player, record: object, game_number: int = 0) -> Transcript:
        with django_capture_on_commit_callbacks(execute=True):
            transcript = transcript_submit(match=match, player=player, game_number=game_number, record=record)
        transcript.refresh_from_db()
        return transcript

    return do


def referee_of(match: Match) -> Player:
    """A member named a referee of the competition (a name gives powers only to members: issue 21, finding 4)."""
    referee = MembershipFactory(club=match.competition.club).player
    match.competition.referees.add(referee)
    return referee


def organiser_of(match: Match) -> Player:
    organiser = PlayerFactory()
    MembershipFactory(club=match.competition.club, player=organiser, role=Membership.Role.ORGANISER)
    return organiser


# --- A valid transcript of each game -----------------------------------------------------------------

TABLES = [
    ("war", 2, {}),
    ("1923", 2, {"mode": "set"}),
    ("1923", 3, {}),
    ("banter", 2, {}),
    ("punk", 3, {}),
    ("punk", 2, {"dummy": True}),
]


@pytest.mark.parametrize(("game", "people", "options"), TABLES)
def test_a_valid_transcript_of_each_game_is_verified(game: str, people: int, options: dict[str, Any], submit) -> None:
    match, players = transcript_match(game, people=people, options=options)
    transcript = submit(match, players[0], table_record(match))
    assert (transcript.status, transcript.reason) == (Transcript.Status.VERIFIED, "")
    assert [(e.action, e.from_status, e.to_status, e.actor_id) for e in transcript.events.all()] == [
        ("submit", "", "submitted", players[0].pk),
        ("verify", "submitted", "verified", None),
    ]


def test_a_transcript_may_leave_out_options_at_their_defaults(submit) -> None:
    match, players = transcript_match("1923", options={"mode": "set"})
    record = table_record(match)
    record["options"] = {"mode": "set"}
    assert submit(match, players[0], record).status == Transcript.Status.VERIFIED


# --- Corrupted records are rejected with the first broken step -----------------------------------------


def rejected(submit: Callable[..., Transcript], match: Match, player: Player, record: dict[str, Any]) -> str:
    transcript = submit(match, player, record)
    assert transcript.status == Transcript.Status.REJECTED
    return transcript.reason


def test_an_illegal_action_is_rejected_naming_its_step_and_seat(submit) -> None:
    match, players = transcript_match("1923", options={"mode": "set"})
    record = table_record(match)
    record["actions"][1][0] = "FOLD"
    reason = rejected(submit, match, players[0], record)
    assert reason.startswith("step 1: seat ") and "illegal action 'FOLD'" in reason


def test_a_card_not_in_hand_is_an_illegal_action(submit) -> None:
    match, players = transcript_match("banter")
    record = table_record(match)
    held = set(record["deal"]["piles"][0]["draw"][:5]) | set(record["deal"]["piles"][1]["draw"][:5])
    stranger = next(c for c in ("AS", "KS", "QS", "JS", "TS", "9S") if c not in held)
    step = next(i for i, s in enumerate(record["actions"]) if s[0].startswith("PLAY"))
    record["actions"][step] = [f"PLAY {stranger}"]
    assert rejected(submit, match, players[0], record).startswith(f"step {step}: seat ")


def test_a_missing_last_step_is_rejected_as_an_unfinished_game(submit) -> None:
    match, players = transcript_match("punk", people=3)
    record = table_record(match)
    record["actions"].pop()
    last = len(record["actions"]) - 1
    assert rejected(submit, match, players[0], record) == (
        f"step {last + 1}: the record ends after step {last} but the game is not over"
    )


def test_a_missing_trick_in_the_middle_leaves_the_game_unfinished(submit) -> None:
    match, players = transcript_match("punk", people=3)
    record = table_record(match)
    del record["actions"][2]
    steps = len(record["actions"])
    assert rejected(submit, match, players[0], record) == (
        f"step {steps}: the record ends after step {steps - 1} but the game is not over"
    )


def test_a_missing_draw_tick_in_the_middle_is_rejected(submit) -> None:
    match, players = transcript_match("1923", options={"mode": "set"})
    record = table_record(match, seed=8)
    del record["actions"][1]
    # Without the tick the later cards go to other hands: the replay ends elsewhere than stated.
    assert rejected(submit, match, players[0], record).startswith(("step ", "result: "))


def test_an_extra_step_is_rejected_because_the_game_was_over(submit) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    record["actions"].append([])
    assert rejected(submit, match, players[0], record) == "step 1: the game was already over"


def test_a_simultaneous_step_with_too_few_actions_is_rejected(submit) -> None:
    match, players = transcript_match("punk", people=3)
    record = table_record(match)
    record["actions"][0].pop()
    assert rejected(submit, match, players[0], record) == (
        "step 0: expected actions for seats [0, 1, 2], got 2 action(s)"
    )


def test_the_dummy_must_play_the_card_the_engine_draws_for_it(submit) -> None:
    match, players = transcript_match("punk", people=2, options={"dummy": True})
    record = table_record(match)
    dummy_card = record["actions"][0][2]
    other = next(c for c in record["deal"]["hands"][2] if c != dummy_card)
    record["actions"][0][2] = other
    assert rejected(submit, match, players[0], record) == (
        f"step 0: seat 2 is the engine's: it plays {dummy_card!r}, not {other!r}"
    )


def test_a_wrong_stated_result_is_rejected_naming_the_figure(submit) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    stated = record["result"]["rounds"]
    record["result"]["rounds"] = stated + 1
    assert rejected(submit, match, players[0], record) == (f"result: stated rounds {stated + 1}, replay gives {stated}")


def test_a_deal_with_a_card_missing_is_rejected_with_the_count(submit) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    record["deal"]["deck"].pop()
    assert rejected(submit, match, players[0], record) == "deal: deck: expected 52 cards, got 51"


def test_a_punk_hand_short_of_a_card_is_rejected(submit) -> None:
    match, players = transcript_match("punk", people=3)
    record = table_record(match)
    record["deal"]["hands"][1].pop()
    assert rejected(submit, match, players[0], record) == "deal: hand 1: expected 7 cards, got 6"


def test_a_duplicated_card_is_rejected_naming_it_and_the_missing_one(submit) -> None:
    match, players = transcript_match("1923", options={"mode": "set"})
    record = table_record(match)
    deck = record["deal"]["sets"][0]
    missing, deck[-1] = deck[-1], deck[0]
    assert rejected(submit, match, players[0], record) == (
        f"deal: set 1: unexpected or duplicated {deck[0]}; missing {missing}"
    )


def test_war_hands_must_be_one_whole_deck_at_a_real_table(submit) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    record["deal"] = {"hands": [["2C", "8C", "4C"], ["5D", "2D", "9D"]]}
    assert rejected(submit, match, players[0], record) == "deal: hand 1: expected 26 cards, got 3"


def test_a_1923_match_must_list_the_deck_of_every_set_it_played(submit) -> None:
    match, players = transcript_match("1923")
    record = table_record(match, complete=False)
    sets = len(record["result"]["set_table"])
    assert sets > 1
    assert rejected(submit, match, players[0], record) == (
        f"deal: the game played {sets} sets but the deal lists 1: list every set's deck"
    )


def test_banter_must_list_every_reshuffle_made_at_the_table(submit) -> None:
    match, players = transcript_match("banter")
    record = table_record(match, complete=False)
    assert rejected(submit, match, players[0], record).startswith("deal: seat 0 reshuffled its discard pile ")


def test_a_banter_reshuffle_that_is_not_the_discard_pile_is_rejected_at_its_step(submit) -> None:
    match, players = transcript_match("banter")
    record = table_record(match)
    first = record["deal"]["reshuffles"]["0"][0]
    first[0] = next(card for card in ("2C", "3C", "4C", "5C", "6C") if card not in first)
    reason = rejected(submit, match, players[0], record)
    assert reason.startswith("step ") and "seat 0's reshuffle 1: the deal lists" in reason


def test_a_rejected_transcript_stores_only_its_status_reason_and_events(submit) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    record["result"]["winner"] = 1 - record["result"]["winner"]
    transcript = submit(match, players[0], record)
    assert transcript.status == Transcript.Status.REJECTED
    assert transcript.record == record
    assert [e.action for e in transcript.events.all()] == ["submit", "reject"]
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    assert not Game.objects.filter(match=match).exists()
    assert not TranscriptConfirmation.objects.exists()
    assert {s.played for s in Standing.objects.filter(competition=match.competition)} == {0}
    with pytest.raises(TranscriptConflict, match="only a verified transcript can be confirmed"):
        transcript_confirm(transcript=transcript, player=players[1])


# --- Malformed submissions: a 400 naming the field, nothing stored -------------------------------------


def refused(match: Match, player: Player, record: object, game_number: object = 0) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as error:
        transcript_submit(match=match, player=player, game_number=game_number, record=record)
    assert not Transcript.objects.exists()
    return error.value.message_dict


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(format="cardgames-record/0"), "format: expected 'cardgames-record/1'"),
        (lambda r: r.update(options={"max_rounds": 10000, "speed": 3}), "options: option 'speed': unknown option"),
        (lambda r: r.update(options={"max_rounds": 50}), "options: this competition plays with max_rounds=10000"),
        (lambda r: r.update(game="punk"), "game: this match plays war, not 'punk'"),
        (lambda r: r.update(players=3), "players: this match's table has 2 seats, not 3"),
        (lambda r: r.update(deal=None), "deal: required"),
        (lambda r: r.pop("result"), "result: required"),
        (lambda r: r.pop("actions"), "missing field(s): actions"),
        (lambda r: r.update(seed="7"), "seed: expected a whole number"),
        (lambda r: r.update(salt="00"), "salt: a game dealt by hand"),
    ],
)
def test_a_malformed_record_is_refused_naming_the_field(change: Callable[[dict], object], message: str) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    change(record)
    errors = refused(match, players[0], record)
    assert errors["record"][0].startswith(message)


def test_a_record_that_is_not_an_object_is_refused() -> None:
    match, players = transcript_match("war")
    assert refused(match, players[0], "[1, 2]")["record"] == [
        "expected a JSON object in the engine's record format (docs/records.md)"
    ]


@pytest.mark.parametrize("game_number", [-1, 2, True, "0"])
def test_a_game_number_outside_the_match_is_refused(game_number: object) -> None:
    match, players = transcript_match("war", games=2)
    assert "game_number" in refused(match, players[0], table_record(match), game_number)


def test_only_a_person_in_the_match_submits() -> None:
    match, _ = transcript_match("war")
    for outsider in (PlayerFactory(), organiser_of(match), referee_of(match)):
        with pytest.raises(PermissionDenied):
            transcript_submit(match=match, player=outsider, game_number=0, record=table_record(match))
    assert not Transcript.objects.exists()


def test_a_match_not_played_from_transcripts_takes_none() -> None:
    match, players = transcript_match("war")
    Competition.objects.filter(pk=match.competition_id).update(people_play=Competition.PeoplePlay.LIVE)
    match.refresh_from_db()
    with pytest.raises(TranscriptConflict, match="live table"):
        transcript_submit(match=match, player=players[0], game_number=0, record=table_record(match))


def test_a_match_that_is_not_live_takes_no_transcript() -> None:
    match, players = transcript_match("war")
    Match.objects.filter(pk=match.pk).update(status=Match.Status.PENDING)
    with pytest.raises(TranscriptConflict, match="only a live match takes transcripts; this one is pending"):
        transcript_submit(match=match, player=players[0], game_number=0, record=table_record(match))


# --- Confirming ------------------------------------------------------------------------------------------


def test_the_other_participant_confirming_accepts_and_records_the_match(submit) -> None:
    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    transcript_confirm(transcript=transcript, player=players[1])
    transcript.refresh_from_db()
    match.refresh_from_db()
    assert transcript.status == Transcript.Status.ACCEPTED
    assert match.status == Match.Status.DONE and match.rated
    game = Game.objects.get(match=match)
    assert game.record["deal"] == transcript.record["deal"] and game.record["actions"] == transcript.record["actions"]
    standings = {s.entrant.player_id: s for s in Standing.objects.filter(competition=match.competition)}
    winner = players[transcript.record["result"]["winner"]]
    assert (standings[winner.pk].won, standings[winner.pk].played) == (1, 1)
    assert standings[winner.pk].mu > 25 > standings[players[1 if winner == players[0] else 0].pk].mu


def test_the_submitters_own_confirmation_is_implied() -> None:
    match, players = transcript_match("war")
    transcript = Transcript.objects.create(
        match=match, number=1, submitted_by=players[0], record={}, status=Transcript.Status.VERIFIED
    )
    with pytest.raises(TranscriptConflict, match="your confirmation is implied"):
        transcript_confirm(transcript=transcript, player=players[0])


def test_every_other_person_at_the_table_must_confirm(submit) -> None:
    match, players = transcript_match("punk", people=3)
    transcript = submit(match, players[1], table_record(match))
    transcript_confirm(transcript=transcript, player=players[2])
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.VERIFIED
    with pytest.raises(TranscriptConflict, match="already confirmed"):
        transcript_confirm(transcript=transcript, player=players[2])
    transcript_confirm(transcript=transcript, player=players[0])
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.ACCEPTED
    assert [(e.action, e.to_status, e.actor_id) for e in transcript.events.all()][2:] == [
        ("confirm", "verified", players[2].pk),
        ("confirm", "accepted", players[0].pk),
    ]
    match.refresh_from_db()
    assert match.status == Match.Status.DONE


@pytest.mark.parametrize("role", ["named", Membership.Role.REFEREE, Membership.Role.ORGANISER])
def test_a_referee_confirms_for_everyone(role: str, submit) -> None:
    match, players = transcript_match("punk", people=3)
    referee = PlayerFactory()
    if role == "named":
        MembershipFactory(club=match.competition.club, player=referee)
        match.competition.referees.add(referee)
    else:
        MembershipFactory(club=match.competition.club, player=referee, role=role)
    transcript = submit(match, players[0], table_record(match))
    transcript_confirm(transcript=transcript, player=referee)
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.ACCEPTED
    assert transcript.events.last().actor == referee


def test_a_club_member_who_is_not_a_referee_cannot_confirm(submit) -> None:
    match, players = transcript_match("war")
    member = PlayerFactory()
    MembershipFactory(club=match.competition.club, player=member)
    transcript = submit(match, players[0], table_record(match))
    with pytest.raises(PermissionDenied):
        transcript_confirm(transcript=transcript, player=member)
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.VERIFIED


def test_only_a_verified_transcript_can_be_confirmed() -> None:
    match, players = transcript_match("war")
    transcript = Transcript.objects.create(match=match, number=1, submitted_by=players[0], record={})
    with pytest.raises(TranscriptConflict, match="this one is submitted"):
        transcript_confirm(transcript=transcript, player=players[1])
    with pytest.raises(TranscriptConflict, match="this one is submitted"):
        transcript_confirm(transcript=transcript, player=referee_of(match))


# --- Disputes, void and accept -----------------------------------------------------------------------------


def test_a_participant_disputes_and_an_organiser_voids(submit) -> None:
    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    transcript_dispute(transcript=transcript, player=players[1], note="  the 7 of clubs was never played  ")
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.DISPUTED
    assert list(competition_disputes(competition=match.competition)) == [transcript]
    with pytest.raises(TranscriptConflict, match="only a verified transcript can be confirmed"):
        transcript_confirm(transcript=transcript, player=players[1])
    organiser = organiser_of(match)
    transcript_void(transcript=transcript, player=organiser, reason="both players agree it is wrong")
    transcript.refresh_from_db()
    assert (transcript.status, transcript.reason) == (Transcript.Status.VOIDED, "both players agree it is wrong")
    assert [(e.action, e.from_status, e.to_status, e.actor_id, e.note) for e in transcript.events.all()] == [
        ("submit", "", "submitted", players[0].pk, ""),
        ("verify", "submitted", "verified", None, ""),
        ("dispute", "verified", "disputed", players[1].pk, "the 7 of clubs was never played"),
        ("void", "disputed", "voided", organiser.pk, "both players agree it is wrong"),
    ]
    assert list(competition_disputes(competition=match.competition)) == []
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE


def test_a_referee_accepts_a_disputed_transcript_and_the_match_is_recorded(submit) -> None:
    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    transcript_dispute(transcript=transcript, player=players[1], note="I lost on purpose")
    transcript_accept(transcript=transcript, player=referee_of(match), note="the table's witness agrees")
    transcript.refresh_from_db()
    match.refresh_from_db()
    assert transcript.status == Transcript.Status.ACCEPTED
    assert transcript.events.last().note == "the table's witness agrees"
    assert match.status == Match.Status.DONE


def test_a_dispute_needs_a_note_and_a_participant(submit) -> None:
    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    with pytest.raises(ValidationError) as error:
        transcript_dispute(transcript=transcript, player=players[1], note="   ")
    assert "note" in error.value.message_dict
    with pytest.raises(PermissionDenied):
        transcript_dispute(transcript=transcript, player=referee_of(match), note="looks odd")
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.VERIFIED


def test_participants_and_members_cannot_void_or_accept(submit) -> None:
    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    member = PlayerFactory()
    MembershipFactory(club=match.competition.club, player=member)
    for who in (players[1], member):
        with pytest.raises(PermissionDenied):
            transcript_void(transcript=transcript, player=who, reason="no")
        with pytest.raises(PermissionDenied):
            transcript_accept(transcript=transcript, player=who)


def test_an_organiser_who_plays_in_the_match_cannot_settle_it(submit) -> None:
    match, players = transcript_match("war")
    Membership.objects.filter(club=match.competition.club, player=players[1]).update(role=Membership.Role.ORGANISER)
    transcript = submit(match, players[0], table_record(match))
    with pytest.raises(PermissionDenied, match="you play in this match"):
        transcript_accept(transcript=transcript, player=players[1])


def test_void_needs_a_reason_and_an_open_transcript(submit) -> None:
    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    organiser = organiser_of(match)
    with pytest.raises(ValidationError):
        transcript_void(transcript=transcript, player=organiser, reason="")
    transcript_confirm(transcript=transcript, player=players[1])
    with pytest.raises(TranscriptConflict, match="this one is accepted"):
        transcript_void(transcript=transcript, player=organiser, reason="too late")


def test_a_rejected_transcript_can_never_be_accepted(submit) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    record["actions"].append([])
    transcript = submit(match, players[0], record)
    with pytest.raises(TranscriptConflict, match="this one is rejected"):
        transcript_accept(transcript=transcript, player=organiser_of(match))


# --- One accepted transcript per game; a match recorded only when complete -------------------------------


def test_accepting_one_transcript_of_a_game_voids_the_others_and_closes_the_game(submit) -> None:
    match, players = transcript_match("war", games=2)
    first = submit(match, players[0], table_record(match, 0, seed=1))
    second = submit(match, players[1], table_record(match, 0, seed=2))
    transcript_confirm(transcript=second, player=players[0])
    first.refresh_from_db()
    assert first.status == Transcript.Status.VOIDED
    assert first.reason == f"transcript {second.number} was accepted for game 0"
    with pytest.raises(TranscriptConflict, match="game 0 already has an accepted transcript"):
        transcript_submit(match=match, player=players[0], game_number=0, record=table_record(match))


def test_a_two_game_match_is_recorded_once_both_games_are_accepted(submit) -> None:
    match, players = transcript_match("banter", games=2)
    entrants = list(match.participants.order_by("seat").values_list("entrant_id", flat=True))
    game0 = submit(match, players[0], table_record(match, 0, seed=11))
    game1 = submit(match, players[1], table_record(match, 1, seed=12), game_number=1)
    transcript_confirm(transcript=game0, player=players[1])
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    assert not Game.objects.filter(match=match).exists()
    assert {(s.played, s.mu) for s in Standing.objects.filter(competition=match.competition)} == {(0, 25.0)}

    transcript_confirm(transcript=game1, player=players[0])
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.rated
    games = list(Game.objects.filter(match=match).order_by("number"))
    # Seats rotate: participant p sits in seat (p + g) % n in game g.
    assert [g.seating for g in games] == [[entrants[p] for p in seating_for(number, 2, 2)] for number in range(2)]
    standings = {s.entrant_id: s for s in Standing.objects.filter(competition=match.competition)}
    assert [standings[e].played for e in entrants] == [1, 1]
    assert [standings[e].games_played for e in entrants] == [2, 2]
    ranks = [p.rank for p in match.participants.order_by("seat")]
    expected = rate([Skill(25.0, 25.0 / 3)] * 2, ranks)
    assert [standings[e].mu for e in entrants] == pytest.approx([skill.mu for skill in expected])
    # Nothing more is recorded by a later call: the match is done, its transcripts closed.
    with pytest.raises(TranscriptConflict):
        transcript_accept(transcript=game1, player=referee_of(match))
    assert [s.played for s in Standing.objects.filter(competition=match.competition)] == [1, 1]


def test_the_recorded_winner_follows_the_seat_rotation(submit) -> None:
    match, players = transcript_match("war", games=2)
    # The same deal twice: seat 0 wins both games, so participant 0 wins game 0 and participant 1 game 1.
    record = table_record(match, 0, seed=3)
    winning_seat = record["result"]["winner"]
    for number, submitter, confirmer in ((0, 0, 1), (1, 1, 0)):
        transcript = submit(match, players[submitter], copy.deepcopy(record), game_number=number)
        transcript_confirm(transcript=transcript, player=players[confirmer])
    entrants = list(match.participants.order_by("seat").values_list("entrant_id", flat=True))
    winners = list(Game.objects.filter(match=match).order_by("number").values_list("winner_id", flat=True))
    assert winners == [entrants[seating_for(n, 2, 2)[winning_seat]] for n in range(2)]
    assert [s.drawn for s in Standing.objects.filter(competition=match.competition)] == [1, 1]


# --- The verifier task and the reaper -------------------------------------------------------------------------


def test_verifying_twice_changes_nothing_the_second_time(submit) -> None:
    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    transcript_verify(transcript_id=transcript.pk)
    assert [e.action for e in transcript.events.all()] == ["submit", "verify"]


def test_the_reaper_resends_a_transcript_left_submitted(settings) -> None:
    match, players = transcript_match("war")
    transcript = transcript_submit(match=match, player=players[0], game_number=0, record=table_record(match))
    # on_commit never ran (the test's transaction does not commit): as if the broker lost the task.
    assert transcripts_resend_stale() == 0
    Transcript.objects.filter(pk=transcript.pk).update(
        updated_at=transcript.updated_at - timedelta(seconds=settings.MATCH_QUEUE_GRACE + 1)
    )
    assert transcripts_resend_stale() == 1
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.VERIFIED


# --- Concurrency ----------------------------------------------------------------------------------------------


def _race(*calls: Callable[[], object]) -> list[object]:
    """Run the calls at once on their own connections; what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[object] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            barrier.wait()
            outcomes[index] = calls[index]()
        except Exception as exc:  # the outcome is what the test inspects
            outcomes[index] = exc
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return outcomes


def _verified(match: Match, player: Player, game_number: int, seed: int) -> Transcript:
    transcript = transcript_submit(
        match=match, player=player, game_number=game_number, record=table_record(match, game_number, seed=seed)
    )
    return transcript_verify(transcript_id=transcript.pk) or transcript


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_confirmations_racing_for_the_last_two_games_record_the_match_exactly_once(attempt: int) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    match, players = transcript_match("war", games=2)
    referee = referee_of(match)
    game0 = _verified(match, players[0], 0, seed=attempt)
    game1 = _verified(match, players[0], 1, seed=attempt + 10)
    outcomes = _race(
        lambda: transcript_confirm(transcript=game0, player=players[1]),
        lambda: transcript_confirm(transcript=game1, player=referee),
    )
    assert [type(o) for o in outcomes] == [Transcript, Transcript]
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
    assert Game.objects.filter(match=match).count() == 2
    assert [s.played for s in Standing.objects.filter(competition=match.competition)] == [1, 1]


@pytest.mark.django_db(transaction=True)
def test_a_participant_and_a_referee_confirming_at_once_record_once() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    match, players = transcript_match("war")
    transcript = _verified(match, players[0], 0, seed=4)
    outcomes = _race(
        lambda: transcript_confirm(transcript=transcript, player=players[1]),
        lambda: transcript_confirm(transcript=transcript, player=referee_of(match)),
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["Transcript", "TranscriptConflict"]
    assert Game.objects.filter(match=match).count() == 1
    assert [s.played for s in Standing.objects.filter(competition=match.competition)] == [1, 1]
    assert transcript.events.filter(to_status=Transcript.Status.ACCEPTED).count() == 1


# --- The admin site -------------------------------------------------------------------------------------------


def test_organisers_read_transcripts_with_their_trail_and_void_them_in_the_admin(submit, client) -> None:
    from tests.factories import UserFactory

    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    organiser = PlayerFactory(user=UserFactory(username="olga", is_staff=True))
    MembershipFactory(club=match.competition.club, player=organiser, role=Membership.Role.ORGANISER)
    client.force_login(organiser.user)
    listing = client.get("/admin/tournaments/transcript/")
    assert listing.status_code == 200 and b"verified" in listing.content
    page = client.get(f"/admin/tournaments/transcript/{transcript.pk}/change/")
    assert page.status_code == 200 and b"audit event" in page.content.lower() and b"submitted" in page.content
    response = client.post(
        "/admin/tournaments/transcript/",
        {"action": "void_transcripts", "_selected_action": [transcript.pk]},
        follow=True,
    )
    assert response.status_code == 200 and b"Voided 1 transcript" in response.content
    transcript.refresh_from_db()
    assert transcript.status == Transcript.Status.VOIDED
    assert transcript.events.last().actor == organiser
    again = client.post(
        "/admin/tournaments/transcript/",
        {"action": "accept_transcripts", "_selected_action": [transcript.pk]},
        follow=True,
    )
    assert b"only a verified or disputed transcript can be accepted" in again.content


def test_an_organiser_of_another_club_sees_no_transcripts_in_the_admin(submit, client) -> None:
    from tests.factories import UserFactory

    match, players = transcript_match("war")
    transcript = submit(match, players[0], table_record(match))
    stranger = PlayerFactory(user=UserFactory(username="sam", is_staff=True))
    MembershipFactory(player=stranger, role=Membership.Role.ORGANISER)
    client.force_login(stranger.user)
    assert client.get(f"/admin/tournaments/transcript/{transcript.pk}/change/").status_code in (302, 403, 404)
    assert b"transcript 1 of match" not in client.get("/admin/tournaments/transcript/").content


def test_the_example_in_the_docs_is_a_verified_transcript(submit) -> None:
    import json
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "transcripts.md").read_text()
    example = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    match, players = transcript_match("war")
    assert submit(match, players[0], example).status == Transcript.Status.VERIFIED
