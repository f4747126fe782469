"""Fuzzing the transcripts people upload: any document gives the project's validation error, never a 500.

The parsers are called directly as functions, with an unsaved competition and no server:
``transcript_record`` (the shape check before a transcript is stored) and ``judge`` (the
worker's replay) in tournaments/services/transcripts.py, the upload reader in
tournaments/api/transcripts.py and ``validate_ruleset`` for the API's ``options``. A few
database tests then post what the fuzzing found through the API, to see a 400 and not a 500.
"""

from __future__ import annotations

import copy
import json
import math
import random
from functools import cache
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rest_framework import exceptions

from engine.bots import seat_agents
from engine.cards import standard_deck
from engine.games.punk import deck_for
from engine.runner import play_game
from tests.engine.fuzz_support import json_values, mutated_records
from tests.factories import full_options
from tests.league.test_api_support import client_for
from tests.tournaments.transcript_support import banter_reshuffles, table_record, transcript_match
from tournaments.api.transcripts import _uploaded_record
from tournaments.models import Competition, Transcript
from tournaments.services.competitions import validate_ruleset
from tournaments.services.transcripts import MAX_RECORD_DEPTH, judge, transcript_record

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: What PostgreSQL refused to store, and json to read, before the fix: each was a 500.
HOSTILE = {
    "nul": "a\x00b",
    "surrogate": "\ud800",
    "nan": math.nan,
    "infinity": -math.inf,
    "nested": json.loads("[" * 900 + "]" * 900),
}


@cache
def table_records() -> tuple[tuple[dict[str, Any], int], ...]:
    """Games dealt by hand, each a transcript ``judge`` accepts, with the number of people at the table."""
    deck = standard_deck()
    random.Random(4).shuffle(deck)
    piles = [deck[:13], deck[13:]], [deck[26:39], deck[39:] + deck[:26]]
    hands = deck_for(3)
    random.Random(5).shuffle(hands)
    games: list[tuple[str, int, dict[str, Any], dict[str, Any]]] = [
        ("war", 2, {}, {"deck": deck}),
        ("1923", 3, {"mode": "set"}, {"sets": [deck]}),
        ("banter", 2, {"max_rounds": 4}, {"piles": [{"draw": draw, "deck": rest} for draw, rest in piles]}),
        ("punk", 2, {"dummy": True}, {"hands": [hands[seat::3] for seat in range(3)]}),
    ]
    records = []
    for game, people, options, deal in games:
        bots = ["random"] * people
        agents = seat_agents(game, bots, options, 9) if game != "war" else [None, None]
        record = play_game(game, agents=agents, seed=9, options=options, deal=deal)
        if game == "banter":
            record.deal = {**(record.deal or {}), "reshuffles": banter_reshuffles(record)}
        raw = record.to_dict()
        assert judge(competition=competition_for(raw), people=people, game_number=0, raw=raw)[1] == ""
        records.append((raw, people))
    return tuple(records)


def competition_for(raw: dict[str, Any]) -> Competition:
    """An unsaved competition that plays the record's game with its ruleset, played from transcripts."""
    people = raw["players"] - (1 if raw["options"].get("dummy") else 0)
    options = full_options(raw["game"], people, raw["options"])
    return Competition(game=raw["game"], options=options, people_play=Competition.PeoplePlay.TRANSCRIPT)


def storable(raw: object) -> bool:
    """What PostgreSQL's jsonb keeps: strict JSON in UTF-8, no NUL in any text, nested as records nest."""
    try:
        json.dumps(raw, allow_nan=False, ensure_ascii=False).encode()  # UnicodeEncodeError is a ValueError
    except (ValueError, RecursionError):
        return False
    stack: list[tuple[object, int]] = [(raw, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_RECORD_DEPTH or (isinstance(value, str) and "\x00" in value):
            return False
        if isinstance(value, dict):
            stack.extend((key, depth) for key in value)
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
    return True


# --- transcript_record and judge ---------------------------------------------------------------


@st.composite
def transcripts(draw: st.DrawFn) -> tuple[Any, dict[str, Any], int]:
    """A document for a competition: a mutated transcript of its game, or any JSON at all."""
    raw, people = draw(st.sampled_from(table_records()))
    document = draw(st.one_of(mutated_records(raw), mutated_records(raw), json_values()))
    return document, raw, people


@FUZZ
@given(case=transcripts(), game_number=st.integers(0, 2))
def test_a_submitted_document_is_a_record_or_a_validation_error(case: tuple[Any, Any, int], game_number: int) -> None:
    document, raw, people = case
    competition = competition_for(raw)
    try:
        record = transcript_record(competition=competition, people=people, raw=copy.deepcopy(document))
    except ValidationError as exc:
        assert list(exc.message_dict) == ["record"]
        assert all("\n" not in message for message in exc.message_dict["record"])
    else:
        assert record.game == competition.game and record.deal is not None and record.result is not None
        # What passes the shape check is stored as it came: PostgreSQL must be able to keep it.
        assert storable(document)
    judged, reason = judge(competition=competition, people=people, game_number=game_number, raw=document)
    assert (judged is None) == bool(reason)
    assert "\n" not in reason


@pytest.mark.parametrize("index", range(4))
def test_a_real_table_game_is_accepted_as_it_is(index: int) -> None:
    raw, people = table_records()[index]
    record, reason = judge(competition=competition_for(raw), people=people, game_number=0, raw=raw)
    assert reason == "" and record is not None and record.to_dict()["actions"] == raw["actions"]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_text_and_numbers_postgresql_refuses_are_a_validation_error(name: str) -> None:
    raw, people = table_records()[0]
    document = copy.deepcopy(raw)
    document["result"]["note"] = HOSTILE[name]
    with pytest.raises(ValidationError) as caught:
        transcript_record(competition=competition_for(raw), people=people, raw=document)
    assert caught.value.message_dict["record"][0].startswith(("text must not", "NaN", "nested more than"))


# --- The upload reader -------------------------------------------------------------------------


class _Upload:
    """The little of a DRF request that ``_uploaded_record`` reads."""

    def __init__(self, data: bytes) -> None:
        self.FILES = {"file": SimpleUploadedFile("game.json", data, "application/json")}


@FUZZ
@given(data=st.one_of(st.binary(max_size=200), json_values().map(lambda value: json.dumps(value).encode())))
@example(data=b"[" * 100_000)
@example(data=b'{"a":' * 5000)
@example(data=b"\xff\xfe\x00\xd8")
@example(data=b"NaN")
def test_an_uploaded_file_is_json_or_a_400_naming_the_file(data: bytes) -> None:
    try:
        document = _uploaded_record(_Upload(data))  # type: ignore[arg-type]
    except exceptions.ValidationError as exc:
        detail = exc.detail
        assert isinstance(detail, dict) and list(detail) == ["file"]
        messages = detail["file"]
        assert isinstance(messages, list) and str(messages[0]).startswith("not valid JSON")
    else:
        assert type(document) is type(json.loads(data))


# --- The API's options -------------------------------------------------------------------------


@FUZZ
@given(
    game=st.sampled_from(["war", "1923", "banter", "punk", "chess", "WAR"]),
    options=st.one_of(st.dictionaries(st.text(max_size=12), json_values(), max_size=4), json_values()),
    players=st.integers(-2, 14),
)
@example(game="war", options={"max_rounds": 10**4000}, players=2)
@example(game="banter", options={"first_lead": 10**4000}, players=2)
@example(game="punk", options={"dummy": "maybe"}, players=2)
def test_any_options_from_the_api_are_a_ruleset_or_a_validation_error(game: str, options: Any, players: int) -> None:
    try:
        ruleset = validate_ruleset(game=game, options=options, players_per_match=players)
    except ValidationError as exc:
        assert set(exc.message_dict) <= {"game", "options", "players_per_match"}
        assert all(len(message) < 400 for messages in exc.message_dict.values() for message in messages)
    else:
        assert validate_ruleset(game=game, options=ruleset, players_per_match=players) == ruleset


# --- Through the API, what the fuzzing found ---------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["json", "file"])
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_transcript_postgresql_cannot_store_is_a_400_not_a_500(name: str, how: str) -> None:
    match, players = transcript_match("war")
    record = table_record(match)
    record["result"]["note"] = HOSTILE[name]
    client = client_for(players[0].user)
    client.raise_request_exception = False
    url = f"/api/matches/{match.pk}/transcripts/"
    if how == "json":
        # NaN is not JSON, so a JSON body cannot carry it: DRF's parser refuses it (a 400 too).
        body = json.dumps({"game_number": 0, "record": record})
        response = client.post(url, body, content_type="application/json")
    else:
        upload = SimpleUploadedFile("game.json", json.dumps(record).encode(), "application/json")
        response = client.post(url, {"game_number": 0, "file": upload}, format="multipart")
    assert response.status_code == 400, response.content[:200]
    assert not Transcript.objects.exists()


@pytest.mark.django_db
def test_an_upload_nested_too_deeply_is_a_400_naming_the_file() -> None:
    match, players = transcript_match("war")
    client = client_for(players[0].user)
    client.raise_request_exception = False
    upload = SimpleUploadedFile("game.json", b"[" * 100_000, "application/json")
    response = client.post(
        f"/api/matches/{match.pk}/transcripts/", {"game_number": 0, "file": upload}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json() == {"file": ["not valid JSON: nested too deeply"]}
