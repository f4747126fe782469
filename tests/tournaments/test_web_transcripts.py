"""/play/matches/<id>/transcripts/: a seated person sends a game played with real cards, by file or step by step,
and confirms or disputes the others' (issue 23). Every write is the API's own service."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from engine.games import get_game
from engine.record import Record
from engine.verify import verify
from league.models import Membership, Player
from tests.factories import MembershipFactory, PlayerFactory
from tests.tournaments.transcript_support import shuffled, table_record, transcript_match
from tournaments.models import Match, Transcript
from tournaments.web.transcript_builder import Draft, Table, advance, table_for
from tournaments.web.transcripts import takes_transcripts

pytestmark = pytest.mark.django_db

Capture = Callable[..., Any]


def signed_in(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def page_url(match: Match, name: str = "match-transcripts", *args: object) -> str:
    return reverse(f"site:{name}", args=[match.pk, *args])


def text(response: Any) -> str:
    return response.content.decode()


# --- Reading the page ---------------------------------------------------------------------------


def test_a_visitor_is_sent_to_sign_in() -> None:
    match, _ = transcript_match("war")
    response = Client().get(page_url(match))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_someone_outside_the_match_is_refused_with_the_sites_page() -> None:
    match, _ = transcript_match("war")
    response = signed_in(PlayerFactory()).get(page_url(match))
    assert response.status_code == 403
    assert "Only the match&#x27;s players" in text(response)


def test_a_seated_person_sees_the_builder_and_the_upload_form() -> None:
    match, players = transcript_match("war")
    response = signed_in(players[0]).get(page_url(match))
    assert response.status_code == 200
    body = text(response)
    assert "Enter a game step by step" in body and "Or upload a record file" in body
    assert players[0].display_name in body and players[1].display_name in body
    assert takes_transcripts(match)


def test_the_match_page_leads_its_players_to_the_transcripts_instead_of_a_live_table() -> None:
    match, players = transcript_match("war")
    body = text(signed_in(players[0]).get(reverse("site:table", args=[match.pk])))
    assert f'href="{page_url(match)}"' in body and "Write down this match" in body
    assert 'id="table"' not in body and "table.js" not in body  # no live table to wait for


def test_an_organiser_outside_the_match_reads_but_gets_no_forms() -> None:
    match, _ = transcript_match("war")
    organiser = PlayerFactory()
    MembershipFactory(club=match.competition.club, player=organiser, role=Membership.Role.ORGANISER)
    body = text(signed_in(organiser).get(page_url(match)))
    assert "Games written down" in body
    assert "Enter a game step by step" not in body and "Or upload a record file" not in body


# --- Uploading a record file --------------------------------------------------------------------


def upload(client: Client, match: Match, content: bytes, game: int = 0) -> Any:
    file = SimpleUploadedFile("game.json", content, "application/json")
    return client.post(page_url(match, "transcript-upload"), {"game_number": game, "record": file})


def test_a_file_that_is_not_json_is_named_on_the_form_and_nothing_is_stored() -> None:
    match, players = transcript_match("war")
    response = upload(signed_in(players[0]), match, b"{not json")
    assert response.status_code == 200
    assert "This file is not a game record: it is not valid JSON" in text(response)
    assert not Transcript.objects.exists()


def test_a_record_of_another_game_gets_the_services_words_on_the_form() -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    record["game"] = "punk"
    response = upload(signed_in(players[0]), match, json.dumps(record).encode())
    assert response.status_code == 200
    assert "game: this match plays war, not &#x27;punk&#x27;" in text(response)
    assert not Transcript.objects.exists()


def test_a_good_file_is_stored_and_checked(django_capture_on_commit_callbacks: Capture) -> None:
    match, players = transcript_match("war")
    client = signed_in(players[0])
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client, match, json.dumps(table_record(match)).encode())
    assert response.status_code == 302
    transcript = Transcript.objects.get()
    assert (transcript.status, transcript.submitted_by) == (Transcript.Status.VERIFIED, players[0])
    page = text(client.get(page_url(match)))
    assert "Checked: the moves are valid" in page


def test_a_second_submission_stands_beside_the_first_until_one_is_accepted_then_is_refused(
    django_capture_on_commit_callbacks: Capture,
) -> None:
    match, players = transcript_match("war", games=2)
    first, second = signed_in(players[0]), signed_in(players[1])
    with django_capture_on_commit_callbacks(execute=True):
        upload(first, match, json.dumps(table_record(match, 0, seed=1)).encode())
        upload(first, match, json.dumps(table_record(match, 0, seed=2)).encode())
    assert list(Transcript.objects.values_list("number", "status")) == [(1, "verified"), (2, "verified")]
    second.post(page_url(match, "transcript-confirm", 2))
    assert list(Transcript.objects.values_list("number", "status")) == [(1, "voided"), (2, "accepted")]
    response = upload(first, match, json.dumps(table_record(match, 0, seed=3)).encode())
    assert response.status_code == 200
    assert "game 0 already has an accepted transcript" in text(response)
    assert Transcript.objects.count() == 2


def test_only_a_seated_person_may_send_one() -> None:
    match, _ = transcript_match("war")
    organiser = PlayerFactory()
    MembershipFactory(club=match.competition.club, player=organiser, role=Membership.Role.ORGANISER)
    response = upload(signed_in(organiser), match, json.dumps(table_record(match)).encode())
    assert response.status_code == 200
    assert "only a person playing in this match may submit its transcripts" in text(response)
    assert signed_in(organiser).post(page_url(match, "transcript-draft-start"), {"game_number": 0}).status_code == 403
    assert not Transcript.objects.exists()


# --- The step-by-step builder -------------------------------------------------------------------


class Builder:
    """A seated person working the builder through its forms, as the page posts them."""

    def __init__(self, match: Match, player: Player) -> None:
        self.match, self.client = match, signed_in(player)

    def post(self, name: str, data: dict[str, Any] | None = None) -> Any:
        return self.client.post(page_url(self.match, f"transcript-draft-{name}"), data or {})

    def page(self) -> str:
        return text(self.client.get(page_url(self.match)))

    def draft(self) -> dict[str, Any]:
        raw: dict[str, Any] = self.client.session[f"transcript-draft-{self.match.pk}"]
        return raw


def test_a_bad_card_in_the_deal_is_named_on_its_field_and_the_draft_waits() -> None:
    match, players = transcript_match("war")
    builder = Builder(match, players[0])
    assert builder.post("start", {"game_number": 0}).status_code == 302
    deck = shuffled(get_game("war").full_deck({}, 2), 1)
    deck[4] = "ZZ"
    response = builder.post("deal", {"part_0": " ".join(deck)})
    assert response.status_code == 200
    assert "Card 5, “ZZ”, is not written as a card: its rank, then its suit" in text(response)
    assert "hand, in any order: card" not in text(response)  # the field's label is said once, above it
    assert builder.draft()["start"] is None


def test_a_deal_with_a_card_twice_is_refused_in_the_engines_words() -> None:
    match, players = transcript_match("war")
    builder = Builder(match, players[0])
    builder.post("start", {"game_number": 0})
    deck = shuffled(get_game("war").full_deck({}, 2), 1)
    deck[deck.index("KS")] = "2C"
    body = text(builder.post("deal", {"part_0": " ".join(deck)}))
    assert "This deal does not fit the game: deal: deck: unexpected or duplicated 2C; missing KS" in body
    # What was typed stays on the form, to be corrected.
    assert " ".join(deck) in body


def punk_hands(seed: int = 4) -> list[list[str]]:
    deck = shuffled(get_game("punk").full_deck({}, 3), seed)
    return [deck[seat::3] for seat in range(3)]


def dealt_punk() -> tuple[Builder, list[Player], list[list[str]]]:
    """A Punk game with the dummy, its deal entered by the first player: the next thing is a trick."""
    match, players = transcript_match("punk", people=2, options={"dummy": True})
    builder = Builder(match, players[0])
    builder.post("start", {"game_number": 0})
    hands = punk_hands()
    assert builder.post("deal", {f"part_{i}": " ".join(h) for i, h in enumerate(hands)}).status_code == 302
    return builder, players, hands


def test_an_illegal_move_from_a_tampered_form_is_named_and_not_kept() -> None:
    builder, players, hands = dealt_punk()
    not_held = hands[1][0]
    response = builder.post("step", {"seat_0": not_held, "seat_1": hands[1][1]})
    assert response.status_code == 200
    body = text(response)
    assert f"That move is not allowed: move 1: {players[0].display_name}: illegal action &#x27;{not_held}&#x27;" in body
    assert builder.draft()["actions"] == []


def test_a_step_needs_every_deciding_seats_move() -> None:
    builder, players, hands = dealt_punk()
    body = text(builder.post("step", {"seat_0": hands[0][0]}))
    assert f"Choose {players[1].display_name}&#x27;s move." in body


def play_through(builder: Builder, rng: random.Random, deal: list[list[str]], seed: int = 0) -> None:
    """Enter ``deal``, then random legal moves and any shuffled deck asked for, until the game is over."""
    fields: dict[str, Any] = {f"part_{i}": " ".join(cards) for i, cards in enumerate(deal)}
    if "Draw number" in builder.page():
        fields["seed"] = seed
    assert builder.post("deal", fields).status_code == 302
    for _ in range(2000):
        table = _table(builder)
        _, position = advance(table, Draft.from_json(builder.draft()))
        if position.over:
            return
        if position.wanted is not None:
            cards = list(position.wanted.cards) or get_game(table.game_name).full_deck(table.options, table.players)
            assert builder.post("deck", {"cards": " ".join(shuffled(cards, rng.randrange(1000)))}).status_code == 302
            continue
        moves = {f"seat_{seat}": rng.choice(actions) for seat, actions in position.choices.items()}
        assert builder.post("step", moves).status_code == 302
    raise AssertionError("the game did not end")


def _table(builder: Builder) -> Table:
    competition = builder.match.competition
    names = [p.entrant.name for p in builder.match.participants.select_related("entrant").order_by("seat")]
    return table_for(
        game_name=competition.game,
        options=competition.options,
        names=names,
        game_number=builder.draft()["game_number"],
    )


def start_deal(game: str, table_seats: int, options: dict[str, Any]) -> list[list[str]]:
    engine_game = get_game(game)
    full = engine_game.full_deck(engine_game.parse_options(options, table_seats), table_seats)
    if game == "banter":
        return [pile for seat in (0, 1) for deck in [shuffled(full[:52], seat)] for pile in (deck[:13], deck[13:])]
    if game == "punk":
        deck = shuffled(full, 2)
        return [deck[seat::table_seats] for seat in range(table_seats)]
    return [shuffled(full, 3)]


@pytest.mark.parametrize(
    ("game", "people", "options", "game_number"),
    [
        ("war", 2, {}, 0),
        ("punk", 2, {"dummy": True}, 1),
        ("punk", 3, {}, 2),
        ("1923", 2, {"target_points": 30}, 0),
        ("banter", 2, {"max_rounds": 8}, 1),
    ],
)
def test_every_game_is_built_step_by_step_and_sent_as_a_record_the_verifier_accepts(
    game: str, people: int, options: dict[str, Any], game_number: int, django_capture_on_commit_callbacks: Capture
) -> None:
    match, players = transcript_match(game, people=people, games=3, options=options)
    builder = Builder(match, players[1])
    builder.post("start", {"game_number": game_number})
    play_through(builder, random.Random(7), start_deal(game, _table(builder).players, options), seed=3)
    body = builder.page()
    assert "The game is over" in body and "Undo last step" in body
    with django_capture_on_commit_callbacks(execute=True):
        response = builder.post("send")
    assert response.status_code == 302
    transcript = Transcript.objects.get()
    assert (transcript.game_number, transcript.status) == (game_number, Transcript.Status.VERIFIED), transcript.reason
    assert verify(Record.from_dict(transcript.record)).ok
    assert f"transcript-draft-{match.pk}" not in builder.client.session


def test_undo_takes_back_the_last_move_and_then_the_deal_which_comes_back_filled_in() -> None:
    builder, _, hands = dealt_punk()
    builder.post("step", {"seat_0": hands[0][0], "seat_1": hands[1][0]})
    assert len(builder.draft()["actions"]) == 1
    builder.post("undo")
    assert builder.draft()["actions"] == [] and builder.draft()["start"] is not None
    builder.post("undo")
    assert builder.draft()["start"] is None
    assert " ".join(hands[0]) in builder.page()
    builder.post("restart")
    assert f"transcript-draft-{builder.match.pk}" not in builder.client.session


def test_a_broken_draft_in_the_session_is_dropped_not_a_500() -> None:
    match, players = transcript_match("war")
    builder = Builder(match, players[0])
    session = builder.client.session
    session[f"transcript-draft-{match.pk}"] = {"game_number": "x"}
    session.save()
    assert "Start writing down the game" in builder.page()
    assert builder.post("step", {"seat_0": "DRAW"}).status_code == 200


# --- Confirming and disputing -------------------------------------------------------------------


@pytest.fixture
def verified(django_capture_on_commit_callbacks: Capture) -> Iterator[tuple[Match, list[Player]]]:
    match, players = transcript_match("war")
    with django_capture_on_commit_callbacks(execute=True):
        upload(signed_in(players[0]), match, json.dumps(table_record(match)).encode())
    yield match, players


def test_the_other_player_confirms_and_the_match_is_recorded(verified: tuple[Match, list[Player]]) -> None:
    match, players = verified
    other = signed_in(players[1])
    assert "Confirm: this is the game we played" in text(other.get(page_url(match)))
    writers_page = text(signed_in(players[0]).get(page_url(match)))
    assert "Confirm: this is the game we played" not in writers_page
    assert f"Waiting for {players[1].display_name} to confirm it." in writers_page
    response = other.post(page_url(match, "transcript-confirm", 1), follow=True)
    assert "You confirmed game 1&#x27;s transcript." in text(response)
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
    assert Transcript.objects.get().status == Transcript.Status.ACCEPTED


def test_confirming_twice_gives_the_services_reason_as_a_message(verified: tuple[Match, list[Player]]) -> None:
    match, players = verified
    response = signed_in(players[0]).post(page_url(match, "transcript-confirm", 1), follow=True)
    assert "you submitted this transcript: your confirmation is implied" in text(response)


def test_a_dispute_needs_a_reason_and_then_is_recorded(verified: tuple[Match, list[Player]]) -> None:
    match, players = verified
    other = signed_in(players[1])
    empty = other.post(page_url(match, "transcript-dispute", 1), {"note": "  "})
    assert empty.status_code == 200 and "This field is required." in text(empty)
    assert Transcript.objects.get().status == Transcript.Status.VERIFIED
    other.post(page_url(match, "transcript-dispute", 1), {"note": "the third trick went to me"})
    assert Transcript.objects.get().status == Transcript.Status.DISPUTED
    page = text(other.get(page_url(match)))
    assert "Disputed" in page and "the third trick went to me" in page


def test_the_page_costs_the_same_queries_with_many_transcripts(
    django_capture_on_commit_callbacks: Capture, django_assert_num_queries: Capture
) -> None:
    match, players = transcript_match("war", games=3)
    client = signed_in(players[0])
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, match, json.dumps(table_record(match, 0, seed=1)).encode())
    client.get(page_url(match))
    with django_assert_num_queries(11):
        client.get(page_url(match))
    with django_capture_on_commit_callbacks(execute=True):
        for seed in range(2, 6):
            upload(client, match, json.dumps(table_record(match, seed % 3, seed=seed)).encode())
    signed_in(players[1]).post(page_url(match, "transcript-confirm", 2))
    with django_assert_num_queries(11):
        client.get(page_url(match))


def test_a_match_played_at_the_live_table_says_so_and_offers_no_forms() -> None:
    match, players = transcript_match("war")
    match.competition.people_play = "live"
    match.competition.save(update_fields=["people_play"])
    assert not takes_transcripts(match)
    client = signed_in(players[0])
    body = text(client.get(page_url(match)))
    assert "This match is played at the live table" in body
    assert "Enter a game step by step" not in body
    refused = client.post(page_url(match, "transcript-draft-start"), {"game_number": 0}, follow=True)
    assert "This match does not take transcripts now." in text(refused)
    assert f"transcript-draft-{match.pk}" not in client.session


def test_a_rejected_file_names_its_first_broken_move_in_the_players_words(
    django_capture_on_commit_callbacks: Capture,
) -> None:
    match, players = transcript_match("punk", people=2, options={"dummy": True})
    record = table_record(match, 0, seed=3)
    record["actions"][2][1] = "QX"
    with django_capture_on_commit_callbacks(execute=True):
        upload(signed_in(players[0]), match, json.dumps(record).encode())
    assert Transcript.objects.get().status == Transcript.Status.REJECTED
    body = text(signed_in(players[1]).get(page_url(match)))
    assert "Rejected by the engine" in body
    assert f"Move 3: {players[1].display_name}: illegal action &#x27;QX&#x27;" in body
    assert "Nothing was recorded from it" in body
    assert "Confirm: this is the game we played" not in body
    assert "place 1" not in body  # what a rejected record states is not shown as the game's result
