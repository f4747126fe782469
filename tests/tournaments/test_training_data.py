"""A bot's training data (docs/training-data.md): GET /api/bots/{id}/training-data/, its owner's only, one JSON
line per decision from the bot's own seat, never a card that seat could not see, streamed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.http import StreamingHttpResponse
from django.utils import timezone

from engine.decisions import seat_decisions
from engine.games import get_game
from engine.record import Record
from engine.referee import LiveGame
from engine.verify import replay, verify
from league.models import Bot, BotVersion, Player
from tests.factories import BotFactory, BotVersionFactory, CompetitionFactory, EntrantFactory, PlayerFactory
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import started
from tests.tournaments.hidden_support import leaks, secrets_for
from tournaments import bench_training_data, training_data
from tournaments.models import Competition, Entrant, Game, Match
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db

#: The games with decisions, each at a table size its bots play at (Punk's needs three).
DECISION_GAMES = [("1923", 2), ("banter", 2), ("punk", 3)]
LINE_KEYS = [
    "game",
    "competition",
    "match",
    "game_number",
    "version",
    "seat",
    "decision",
    "step",
    "observation",
    "legal_actions",
    "action",
    "result",
]


def played(versions: list[BotVersion], game: str, players: int, others: int = 2, **fields: Any) -> Competition:
    """A round robin of ``versions`` and ``others`` built-in bots of other people, every match played here."""
    competition = CompetitionFactory(game=game, players_per_match=players, **fields)
    for version in versions:
        EntrantFactory(competition=competition, bot_version=version)
    for _ in range(others):
        EntrantFactory(competition=competition)
    started(competition)
    competition_play_pending(competition=competition)
    competition.refresh_from_db()
    return competition


def a_bot(game: str, versions: int = 1) -> tuple[Bot, list[BotVersion]]:
    bot = BotFactory(game=game, owner=PlayerFactory())
    return bot, [BotVersionFactory(bot=bot, number=n) for n in range(1, versions + 1)]


def download(bot: Bot, player: Player | None = None, **query: Any) -> Any:
    return client_for(None if player is None else player.user).get(f"/api/bots/{bot.pk}/training-data/", query)


def lines_of(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.content
    body = b"".join(response.streaming_content)
    assert body == b"" or body.endswith(b"\n")
    return [json.loads(line) for line in body.splitlines()]


def the_bot_s_seats(bot: Bot) -> list[tuple[Game, int]]:
    """Every (done game, seat) the bot's versions sat in, from the database: what the download must cover."""
    entrants = set(Entrant.objects.filter(bot_version__bot=bot).values_list("id", flat=True))
    seats = []
    games = Game.objects.filter(match__status=Match.Status.DONE).order_by("match_id", "number")
    for game in games:
        seats += [(game, seat) for seat, who in enumerate(game.seating) if who in entrants]
    return seats


# --- What the owner gets ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), DECISION_GAMES)
def test_the_owner_gets_one_line_per_decision_of_each_seat_the_bot_sat_in(game: str, players: int) -> None:
    bot, (version,) = a_bot(game)
    competition = played([version], game, players, games_per_match=2)
    response = download(bot, bot.owner)
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "application/x-ndjson"
    assert response["Content-Disposition"] == f'attachment; filename="{bot.name}-{bot.pk}-training-data.jsonl"'
    lines = lines_of(response)
    assert lines and all(list(line) == LINE_KEYS for line in lines)
    expected = []
    for stored, seat in the_bot_s_seats(bot):
        record = Record.from_dict(stored.record)
        for decision in seat_decisions(record, seat):
            expected.append((stored.pk, stored.match_id, stored.number, seat, decision.number, decision.action))
    assert [
        (line["game"], line["match"], line["game_number"], line["seat"], line["decision"], line["action"])
        for line in lines
    ] == expected
    assert {(line["competition"], line["version"]) for line in lines} == {(competition.pk, 1)}
    assert all(line["action"] in line["legal_actions"] for line in lines)
    # Seats rotate, so over a match of two games the bot sat in more than one seat.
    assert len({line["seat"] for line in lines}) > 1


def test_each_line_carries_the_game_s_result_as_that_seat_met_it() -> None:
    bot, (version,) = a_bot("punk")
    played([version], "punk", 3)
    lines = lines_of(download(bot, bot.owner))
    for stored, seat in the_bot_s_seats(bot):
        ranks = stored.result["ranks"]
        mine = [line["result"] for line in lines if line["game"] == stored.pk]
        assert mine and all(result == mine[0] for result in mine)
        result = mine[0]
        assert result["rank"] == ranks[seat] and result["players"] == 3
        assert result["score"] == stored.result["scores"][seat] and result["forfeited"] is False
        below = sum(1 for other in ranks if other > ranks[seat])
        level = sum(1 for other in ranks if other == ranks[seat]) - 1
        assert result["score_rate"] == round((below + level / 2) / 2, 6)
        assert result["score_rate_exact"] in {"0", "1/4", "1/2", "3/4", "1"}


def test_a_war_bot_s_download_is_empty_war_asks_no_one_anything() -> None:
    bot, (version,) = a_bot("war")
    played([version], "war", 2)
    assert Game.objects.exists()
    assert lines_of(download(bot, bot.owner)) == []


def test_two_versions_at_one_table_give_both_seats_each_from_its_own_view() -> None:
    bot, versions = a_bot("banter", versions=2)
    played(versions, "banter", 2, others=0)
    lines = lines_of(download(bot, bot.owner))
    game = Game.objects.get()
    assert {(line["seat"], line["version"]) for line in lines} == {
        (seat, 1 if who == min(game.seating) else 2) for seat, who in enumerate(game.seating)
    }
    for seat in (0, 1):
        hands = {tuple(line["observation"]["hand"]) for line in lines if line["seat"] == seat}
        assert all(line["observation"]["seat"] == seat for line in lines if line["seat"] == seat) and hands


def test_a_match_not_done_is_never_in_it() -> None:
    bot, (version,) = a_bot("punk")
    competition = played([version], "punk", 3, others=3)
    kept = competition.matches.order_by("pk").first()
    assert kept is not None
    competition.matches.exclude(pk=kept.pk).update(status=Match.Status.RUNNING)
    lines = lines_of(download(bot, bot.owner))
    assert lines and {line["match"] for line in lines} == {kept.pk}


def test_a_record_that_no_longer_replays_is_said_so_on_a_line_of_its_own() -> None:
    bot, (version,) = a_bot("punk")
    played([version], "punk", 3, others=2)
    broken = Game.objects.order_by("pk").first()
    assert broken is not None
    record = broken.record
    record["actions"][1] = record["actions"][0]  # cards already played
    Game.objects.filter(pk=broken.pk).update(record=record)
    lines = lines_of(download(bot, bot.owner))
    errors = [line for line in lines if "error" in line]
    assert [line["game"] for line in errors] == [broken.pk]
    # Where it breaks, not the engine's reason, which can name a card no one saw.
    assert errors[0]["error"] == "this game's record no longer replays, from step 1"
    # The broken game's decisions up to the step that breaks stand, and its error line comes last.
    of_broken = [line for line in lines if line["game"] == broken.pk]
    assert of_broken[-1] is errors[0] and all(line["step"] < 1 for line in of_broken[:-1])
    assert {line["game"] for line in lines} == {game.pk for game, _ in the_bot_s_seats(bot)}


# --- Never a card the seat could not see ------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), DECISION_GAMES)
def test_no_line_shows_a_card_its_seat_could_not_see_then_nor_the_game_s_seed(game: str, players: int) -> None:
    bot, (version,) = a_bot(game)
    played([version], game, players, games_per_match=2)
    response = download(bot, bot.owner)
    assert response.status_code == 200
    texts = b"".join(response.streaming_content).decode().splitlines()
    by_decision = {(line["game"], line["seat"], line["step"]): text for text in texts for line in [json.loads(text)]}
    checked = sum(check_seat(stored, seat, by_decision) for stored, seat in the_bot_s_seats(bot))
    assert checked > 0 and by_decision == {}, "every line is one decision of the bot's seats, and none is missed"


def check_seat(stored: Game, seat: int, lines: dict[tuple[int, int, int], str]) -> int:
    """Replays the stored game on its own and checks each of the seat's lines (taken out of ``lines``) against
    the engine's state when the seat decided: how many it checked."""
    record = Record.from_dict(stored.record)
    engine_game = get_game(record.game)
    step = checked = 0

    def at_each_step(state: Any) -> None:
        # Called after the start and after each step: the state in which the next step was decided.
        nonlocal step, checked
        if step < len(record.actions) and seat in engine_game.to_act(state):
            text = lines.pop((stored.pk, seat, step))
            line = json.loads(text)
            # The engine's own view for that seat at that moment, and nothing else of the game.
            assert line["observation"] == json.loads(json.dumps(engine_game.observation(state, seat)))
            assert line["legal_actions"] == engine_game.legal_actions(state, seat)
            live = LiveGame(
                game_name=record.game,
                players=record.players,
                options=record.options,
                seed=record.seed,
                deal=record.deal,
                state=state,
            )
            assert leaks(text, secrets_for(live, seat)) == []
            assert str(record.seed) not in text
            if record.game == "punk":  # an opponent's hand, in so many words
                others = {card for other, hand in enumerate(state.hands) if other != seat for card in hand}
                assert not others & set(json.dumps(line["observation"]).replace('"', " ").split())
            checked += 1
        step += 1

    replay(record, on_step=at_each_step)
    return checked


# --- Who may have it ----------------------------------------------------------------------------------------------


def test_only_the_owner_may_download_another_person_is_refused_and_a_signed_out_caller_asked_to_sign_in() -> None:
    bot, (version,) = a_bot("punk")
    played([version], "punk", 3)
    stranger = download(bot, PlayerFactory())
    assert stranger.status_code == 403
    assert stranger.json() == {"detail": "only the bot's owner may download its training data"}
    signed_out = download(bot)
    assert signed_out.status_code == 401
    assert signed_out.json() == {"detail": "sign in as the bot's owner to download its training data"}
    # Another bot's owner, even of a bot that played these very games, gets no more.
    rival = Game.objects.first()
    assert rival is not None
    mine = set(version.entrant_set.values_list("id", flat=True))
    other_entrant = next(who for who in rival.seating if who not in mine)
    other_owner = Bot.objects.get(versions__entrant__id=other_entrant).owner
    assert download(bot, other_owner).status_code == 403
    assert client_for(bot.owner.user).get("/api/bots/999999/training-data/").status_code == 404
    assert client_for().get("/api/bots/999999/training-data/").status_code == 401


# --- Filters ---------------------------------------------------------------------------------------------------


def test_the_filters_keep_one_competition_one_version_and_games_since_a_time() -> None:
    bot, (first, second) = a_bot("punk", versions=2)
    early = played([first], "punk", 3)
    late = played([second], "punk", 3)
    Game.objects.filter(match__competition=early).update(recorded_at=timezone.now() - timezone.timedelta(days=10))
    everything = lines_of(download(bot, bot.owner))
    assert {line["competition"] for line in everything} == {early.pk, late.pk}
    by_competition = lines_of(download(bot, bot.owner, competition=late.pk))
    assert by_competition and {line["competition"] for line in by_competition} == {late.pk}
    by_version = lines_of(download(bot, bot.owner, version=1))
    assert by_version and {(line["competition"], line["version"]) for line in by_version} == {(early.pk, 1)}
    since = (timezone.now() - timezone.timedelta(days=2)).date().isoformat()
    assert lines_of(download(bot, bot.owner, since=since)) == by_competition
    assert lines_of(download(bot, bot.owner, since="2000-01-01T00:00:00Z")) == everything
    assert lines_of(download(bot, bot.owner, competition=late.pk, version=1)) == []
    # A competition the bot never entered, one that does not exist and a version it does not have are filters
    # that keep nothing, as the API's list filters are: a read is not refused for what it does not find.
    other = CompetitionFactory(game="punk", players_per_match=3)
    assert lines_of(download(bot, bot.owner, competition=other.pk)) == []
    assert lines_of(download(bot, bot.owner, competition=other.pk + 1000)) == []
    assert lines_of(download(bot, bot.owner, version=7)) == []


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ({"competition": "twelve"}, {"competition": ["give a competition's id, a whole number such as 12"]}),
        ({"competition": "0"}, {"competition": ["a competition's id is 1 or more"]}),
        ({"competition": str(2**70)}, {"competition": ["no competition has so large an id"]}),
        ({"version": "v2"}, {"version": ["give a version's number, a whole number such as 2"]}),
        ({"version": "-1"}, {"version": ["versions are numbered from 1"]}),
        ({"since": "last week"}, {"since": ["give a date (2026-11-28) or a date and time (2026-11-28T09:30:00Z)"]}),
        ({"since": "2026-13-01"}, {"since": ["give a date (2026-11-28) or a date and time (2026-11-28T09:30:00Z)"]}),
        ({"since": "9999-12-31T23:59:59-01:00"}, {"since": ["give a date between the years 1 and 9999"]}),
    ],
)
def test_a_bad_filter_is_a_400_that_says_what_to_give(query: dict[str, str], errors: dict[str, list[str]]) -> None:
    bot, _ = a_bot("punk")
    response = download(bot, bot.owner, **query)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json() == {key: [m.format(bot=bot.name) for m in messages] for key, messages in errors.items()}


def test_a_bad_filter_from_someone_else_is_still_a_403() -> None:
    bot, _ = a_bot("punk")
    assert download(bot, PlayerFactory(), competition="twelve").status_code == 403


# --- Streamed, in a fixed number of queries ---------------------------------------------------------------------


def download_queries(bot: Bot, django_assert_num_queries: Any, count: int) -> list[dict[str, Any]]:
    client = client_for(bot.owner.user)
    competition = Competition.objects.get()
    with django_assert_num_queries(count):
        response = client.get(f"/api/bots/{bot.pk}/training-data/", {"competition": competition.pk})
        assert response.streaming
        lines = lines_of(response)
    return lines


@pytest.mark.parametrize("others", [2, 5])
def test_the_download_costs_the_same_queries_however_many_games_within_a_chunk(
    others: int, django_assert_num_queries: Any
) -> None:
    bot, (version,) = a_bot("punk")
    played([version], "punk", 3, others=others, games_per_match=2)
    games = Game.objects.count()
    assert games == 2 * (others + 1) * others * (others - 1) // 6
    # The bot (with its owner), the bot's entrants, the games: 3, for 6 games or 60.
    lines = download_queries(bot, django_assert_num_queries, 3)
    assert {line["game"] for line in lines} == {game.pk for game, _ in the_bot_s_seats(bot)}


def test_a_chunk_of_games_costs_one_query(django_assert_num_queries: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    bot, (version,) = a_bot("punk")
    played([version], "punk", 3, others=3, games_per_match=2)
    seats = the_bot_s_seats(bot)
    monkeypatch.setattr(training_data, "CHUNK", 2)
    # A full last chunk needs one more read to learn that it was the last.
    chunks = -(-len(seats) // 2) + (len(seats) % 2 == 0)
    lines = download_queries(bot, django_assert_num_queries, 2 + chunks)
    assert sorted({line["game"] for line in lines}) == sorted(game.pk for game, _ in seats)


def test_lines_go_out_in_pieces_not_all_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    bot, (version,) = a_bot("1923")
    played([version], "1923", 2)
    monkeypatch.setattr(training_data, "PIECE_BYTES", 2048)
    pieces = list(download(bot, bot.owner).streaming_content)
    assert len(pieces) > 3
    assert all(piece.endswith(b"\n") for piece in pieces)  # a piece never cuts a line
    assert max(map(len, pieces)) < 2048 + max(len(line) for piece in pieces for line in piece.splitlines(True))


# --- The benchmark's data (manage.py bench_training_data) -------------------------------------------------------


def test_the_benchmark_s_games_are_real_records_of_its_bot_every_one_downloaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bench_training_data, "POOL", 4)
    scene = bench_training_data.build_scene(token="t")
    bench_training_data.add_games(scene, 130)  # a match of 100 and one of 30
    assert Match.objects.filter(competition=scene.competition, status=Match.Status.DONE).count() == 2
    games = Game.objects.filter(match__competition=scene.competition)
    assert games.count() == 130
    assert all(verify(Record.from_dict(game.record)).ok for game in games[:8])
    lines = lines_of(download(scene.bot, scene.owner))
    # Punk at three: 7 tricks, one decision of the bot's each; its seat rotates.
    assert len(lines) == 130 * 7 and {line["seat"] for line in lines} == {0, 1, 2}


def test_downloads_past_the_hourly_rate_are_a_429_that_says_when_to_come_back(settings: Any) -> None:
    """Each download replays every game it sends: a loop of them is cut off per person, not per bot."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"training_data": "2/hour"}}
    bot, _ = a_bot("punk")
    other, _ = a_bot("punk")
    other.owner = bot.owner
    other.save(update_fields=["owner"])
    answers = [download(bot, bot.owner), download(other, bot.owner), download(bot, bot.owner)]
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert 0 < int(answers[2]["Retry-After"]) <= 3600
    # Someone else's downloads count on their own.
    someone = BotFactory(game="punk")
    assert download(someone, someone.owner).status_code == 200
