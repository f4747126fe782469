"""docs/bot-protocol.md says what it does: its example bots play, its messages are the protocol's.

Every ``<!-- example: GAME -->`` block is a bot file a club member may copy as
it is, so each one plays real games in the sandbox against ``random`` without
a forfeit. The JSON in the "Messages" section must be what the referee sends
and accepts, and each ``<!-- observation: GAME -->`` block must have the keys
that game really shows. The SDK functions the page tells authors to use
(``handle``, ``serve_http``) are tested here as the page describes them.
"""

from __future__ import annotations

import http.client
import http.server
import json
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.bots import make_bot
from engine.games import game_names, get_game, seats_for
from engine.protocol import act_message, action_of, check_ready, decode_reply, encode, end_message, start_message
from engine.remote import SeatedBot
from engine.runner import play_game
from engine.sandbox import SandboxedBot, bot_code
from engine.sdk import Start, Turn, handle, serve_http
from engine.verify import verify
from tests.engine.sandbox_support import needs_sandbox

DOC = Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md"
TEXT = DOC.read_text()
DECIDING_GAMES = [name for name in game_names() if getattr(get_game(name), "DECISIONS", True)]


def tagged_blocks(tag: str, language: str) -> dict[str, str]:
    """``<!-- TAG: GAME -->`` followed by a fenced block: the block's text by game."""
    pattern = re.compile(rf"<!-- {tag}: (\S+) -->\n```{language}\n(.*?)\n```", re.DOTALL)
    blocks: dict[str, str] = {}
    for game, body in pattern.findall(TEXT):
        assert game not in blocks, f"two '{tag}: {game}' blocks"
        blocks[game] = body + "\n"
    return blocks


EXAMPLES = tagged_blocks("example", "python")
OBSERVATIONS = tagged_blocks("observation", "json")


def section(title: str) -> str:
    start = TEXT.index(f"\n## {title}\n")
    end = TEXT.find("\n## ", start + 1)
    return TEXT[start : end if end >= 0 else len(TEXT)]


def message_examples() -> list[dict[str, Any]]:
    blocks = re.findall(r"```json\n(.*?)\n```", section("Messages"), re.DOTALL)
    return [json.loads(block) for block in blocks]


def example_of(kind: str) -> dict[str, Any]:
    found = [message for message in message_examples() if message.get("type") == kind]
    assert len(found) == 1, f"the Messages section should show one {kind!r} message"
    return found[0]


def load_example(game: str) -> Any:
    """The example's ``act`` function, loaded in this process."""
    namespace: dict[str, Any] = {"__name__": f"example_{game}"}
    exec(compile(EXAMPLES[game], f"<bot-protocol.md example: {game}>", "exec"), namespace)
    return namespace["act"]


def real_observation_keys(game_name: str, players: int, options: dict[str, Any] | None = None) -> set[str]:
    game = get_game(game_name)
    parsed = game.parse_options(options or {}, players)
    state = game.new_state(parsed, players, 1)
    return set(game.observation(state, 0))


# --- the page's shape ----------------------------------------------------------------------------


def test_every_game_has_one_example_bot() -> None:
    assert set(EXAMPLES) == set(game_names())


def test_every_game_with_decisions_shows_an_observation() -> None:
    assert set(OBSERVATIONS) == set(DECIDING_GAMES)


@pytest.mark.parametrize("game", game_names())
def test_example_defines_act_and_imports_only_the_standard_library(game: str) -> None:
    act = load_example(game)
    assert callable(act)
    imported = re.findall(r"^\s*(?:import|from)\s+([\w.]+)", EXAMPLES[game], re.MULTILINE)
    for module in imported:
        assert module.split(".")[0] in sys.stdlib_module_names, f"{game} example imports {module}"


# --- messages ------------------------------------------------------------------------------------


def test_message_examples_parse_as_json() -> None:
    messages = message_examples()
    assert {message.get("type") for message in messages} >= {"start", "act", "end"}
    assert {"ready": True} in messages
    assert any(set(message) == {"action"} for message in messages)


def test_start_example_is_what_the_referee_sends() -> None:
    shown = example_of("start")
    game = get_game(shown["game"])
    options = game.parse_options({}, shown["players"])
    sent = start_message(
        match=shown["match"], game=game.NAME, players=shown["players"], options=options, time=shown["time"]
    )
    assert shown == json.loads(encode(sent))


def test_act_example_is_what_the_referee_sends() -> None:
    shown = example_of("act")
    sent = act_message(
        match=shown["match"],
        game=shown["game"],
        game_number=shown["game_number"],
        seat=shown["seat"],
        decision=shown["decision"],
        observation=shown["observation"],
        legal_actions=shown["legal_actions"],
        time=shown["time"],
    )
    assert shown == json.loads(encode(sent))
    assert set(shown["observation"]) == real_observation_keys(shown["game"], len(shown["observation"]["won"]))
    assert set(shown["time"]) == {"move_ms", "bank_ms", "wall_ms"}
    assert shown["match"] == example_of("start")["match"]


def test_end_example_is_what_the_referee_sends() -> None:
    assert example_of("end") == end_message(match=example_of("end")["match"])


def test_reply_examples_are_accepted() -> None:
    messages = message_examples()
    check_ready({"ready": True})
    act_shown = example_of("act")
    replies = [message for message in messages if set(message) == {"action"}]
    for reply in replies:
        assert action_of(decode_reply(encode(reply))) in act_shown["legal_actions"]


def test_act_example_round_trips_through_the_sdk() -> None:
    shown = example_of("act")
    seen: list[Turn] = []

    def act(turn: Turn) -> str:
        seen.append(turn)
        return turn.legal_actions[-1]

    reply = handle(json.loads(encode(shown)), act)
    assert reply == {"action": shown["legal_actions"][-1]}
    assert action_of(decode_reply(encode(reply))) == shown["legal_actions"][-1]
    (turn,) = seen
    for name in ("game", "game_number", "seat", "decision", "observation", "legal_actions", "time"):
        assert getattr(turn, name) == shown[name], f"turn.{name} is not the message's {name!r}"


def test_start_example_reaches_start_with_its_fields() -> None:
    shown = example_of("start")
    seen: list[Start] = []
    assert handle(shown, lambda turn: "", seen.append) == {"ready": True}
    (info,) = seen
    for name in ("game", "players", "options", "time"):
        assert getattr(info, name) == shown[name], f"info.{name} is not the message's {name!r}"


def test_handle_answers_start_without_a_start_function_and_end_with_nothing() -> None:
    assert handle(example_of("start"), lambda turn: "") == {"ready": True}
    assert handle({"type": "end"}, lambda turn: "") is None


@pytest.mark.parametrize("message", [{"type": "resign"}, {}, {"type": None}])
def test_handle_refuses_an_unknown_message_type(message: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="unknown message type"):
        handle(message, lambda turn: "")


# --- each game's observation ---------------------------------------------------------------------

OBSERVATION_TABLES = {"1923": (2, {}), "banter": (2, {}), "punk": (4, {})}


@pytest.mark.parametrize("game", DECIDING_GAMES)
def test_observation_example_has_the_games_keys(game: str) -> None:
    players, options = OBSERVATION_TABLES[game]
    assert set(json.loads(OBSERVATIONS[game])) == real_observation_keys(game, players, options)


@pytest.mark.parametrize("game", DECIDING_GAMES)
def test_observation_example_is_answered_with_a_legal_action(game: str) -> None:
    """The doc's own observation, given to the doc's own bot, as the sandbox would give it."""
    observation = json.loads(OBSERVATIONS[game])
    legal = {
        "1923": ["DRAW", "LOCK"] if observation.get("can_draw") else ["LOCK"],
        "banter": ["PLAY KC", "PLAY 2C", "PLAY 5C"],
        "punk": list(observation["hand"]),
    }[game]
    message = act_message(
        match="doc",
        game=game,
        game_number=0,
        seat=observation["seat"],
        decision=0,
        observation=observation,
        legal_actions=legal,
        time={"move_ms": 1000, "bank_ms": 10000, "wall_ms": 300000},
    )
    reply = handle(json.loads(encode(message)), load_example(game))
    assert reply is not None and reply["action"] in legal


# --- the example bots, in this process (fast, many seeds) ---------------------------------------


class InProcess:
    """An example bot behind the SDK's ``handle``, as the sandbox runs it, minus the sandbox."""

    def __init__(self, game: str, seat: int) -> None:
        self.example = load_example(game)
        self.game = game
        self.seat = seat
        self.decisions = 0

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        message = act_message(
            match="in-process",
            game=self.game,
            game_number=0,
            seat=self.seat,
            decision=self.decisions,
            observation=observation,
            legal_actions=legal_actions,
            time={"move_ms": 1000, "bank_ms": 10000, "wall_ms": 300000},
        )
        self.decisions += 1
        # Through JSON, as on the wire: tuples become lists.
        reply = handle(json.loads(encode(message)), self.example)
        assert reply is not None
        return reply["action"]


# (game, people, options, seeds): the tables a club plays, the smallest and a larger one.
TABLES = [
    ("1923", 2, {}, range(4)),
    ("1923", 4, {}, range(2)),
    ("1923", 12, {}, range(1)),
    ("banter", 2, {}, range(4)),
    ("punk", 3, {}, range(3)),
    ("punk", 5, {}, range(2)),
    ("punk", 10, {}, range(1)),
    ("punk", 2, {"dummy": True}, range(3)),
]


def agents_for(
    game_name: str, people: int, options: dict[str, Any], seed: int, ours: Any
) -> tuple[list[Any], int, dict[str, Any]]:
    """Seats with the example at ``seed % people`` and ``random`` elsewhere (the engine's seats empty)."""
    game = get_game(game_name)
    seats = seats_for(game, people, options)
    parsed = game.parse_options(options, seats)
    auto = game.auto_seats(parsed, seats)
    humans = [seat for seat in range(seats) if seat not in auto]
    mine = humans[seed % len(humans)]
    agents: list[Any] = [
        None
        if seat in auto
        else ours(mine)
        if seat == mine
        else make_bot("random", game=game_name, seat=seat, players=seats, options=parsed, seed=seed)
        for seat in range(seats)
    ]
    return agents, mine, parsed


@pytest.mark.parametrize(
    ("game", "people", "options", "seed"),
    [(game, people, options, seed) for game, people, options, seeds in TABLES for seed in seeds],
)
def test_example_plays_a_whole_game_in_process(game: str, people: int, options: dict[str, Any], seed: int) -> None:
    agents, _, _ = agents_for(game, people, options, seed, lambda seat: InProcess(game, seat))
    record = play_game(game, agents=agents, seed=seed, options=options)
    assert record.forfeit is None
    assert verify(record).ok


# --- the example bots, in the real sandbox -------------------------------------------------------

SANDBOX_TABLES = [
    ("1923", 2, {}, 1),
    ("1923", 2, {}, 2),
    ("1923", 3, {}, 3),
    ("banter", 2, {}, 1),
    ("banter", 2, {}, 2),
    ("banter", 2, {}, 3),
    ("punk", 3, {}, 1),
    ("punk", 4, {}, 2),
    ("punk", 2, {"dummy": True}, 3),
]


@needs_sandbox
@pytest.mark.parametrize(("game", "people", "options", "seed"), SANDBOX_TABLES)
def test_example_plays_in_the_sandbox_without_a_forfeit(
    game: str, people: int, options: dict[str, Any], seed: int, bot_cache: Path
) -> None:
    code = bot_code(filename="mybot.py", content=EXAMPLES[game].encode())
    bots: list[SandboxedBot] = []
    seated: list[SeatedBot] = []

    def sandboxed(seat: int) -> Any:
        seats = seats_for(get_game(game), people, options)
        parsed = get_game(game).parse_options(options, seats)
        bot = SandboxedBot(code=code, cache_dir=bot_cache, game=game, players=seats, options=parsed)
        bots.append(bot)
        seated.append(bot.seated(seat, 0))
        return seated[-1]

    agents, mine, _ = agents_for(game, people, options, seed, sandboxed)
    (bot,) = bots
    try:
        record = play_game(game, agents=agents, seed=seed, options=options)
    finally:
        bot.close()
    assert bot.failure is None, f"{bot.failure}\n{bot.log}"
    assert record.forfeit is None, f"{record.forfeit}\n{bot.log}"
    assert verify(record).ok
    assert seated[0].decisions > 0, "the example was never asked"
    assert record.result is not None and mine in range(len(record.result["ranks"]))
    if game == "1923":
        assert record.result["finished"]


@needs_sandbox
def test_war_example_loads_and_answers_start_in_the_sandbox(bot_cache: Path) -> None:
    game = get_game("war")
    options = game.parse_options({}, 2)
    bot = SandboxedBot(
        code=bot_code(filename="mybot.py", content=EXAMPLES["war"].encode()),
        cache_dir=bot_cache,
        game="war",
        players=2,
        options=options,
    )
    try:
        bot.start()
    finally:
        bot.close()
    assert bot.failure is None, f"{bot.failure}\n{bot.log}"
    assert bot.start_seconds is not None


# --- serve_http ----------------------------------------------------------------------------------


@pytest.fixture
def http_bot(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[tuple[int, str]]:
    """The Punk example served by ``serve_http`` on 127.0.0.1, port 0; yields (port, what it printed).

    ``serve_http`` blocks and returns nothing, so the server it makes is caught
    on its way in, to learn the port the system chose and to stop it after.
    """
    servers: list[http.server.ThreadingHTTPServer] = []
    made = threading.Event()

    class Caught(http.server.ThreadingHTTPServer):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            servers.append(self)
            made.set()

    monkeypatch.setattr(http.server, "ThreadingHTTPServer", Caught)
    act = load_example("punk")

    def crashing_act(turn: Turn) -> str:
        if turn.decision == 99:
            raise RuntimeError("the bot's own bug")
        return act(turn)

    thread = threading.Thread(target=serve_http, args=(crashing_act,), kwargs={"port": 0}, daemon=True)
    thread.start()
    assert made.wait(5), "serve_http did not make a server"
    (server,) = servers
    port = server.server_address[1]
    try:
        # Its first request proves it is serving; by then it has printed where.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("POST", "/", body=encode({"type": "end"}))
        connection.getresponse().read()
        connection.close()
        yield port, capsys.readouterr().err
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


PUNK_ACT = {
    "type": "act",
    "game": "punk",
    "game_number": 0,
    "seat": 0,
    "decision": 0,
    "observation": {
        "seat": 0,
        "players": 3,
        "dummy": None,
        "target": 21,
        "hand": ["AC", "2H", "3C"],
        "hand_sizes": [3, 3, 3],
        "tricks": [],
        "trick_winners": [],
        "cache": [],
        "scores": [0, 0, 0],
        "tricks_played": 0,
    },
    "legal_actions": ["AC", "2H", "3C"],
    "time": {"move_ms": 500, "bank_ms": 0, "wall_ms": 300000},
}


def post(connection: http.client.HTTPConnection, message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    connection.request("POST", "/", body=encode(message), headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def test_serve_http_binds_port_zero_and_says_where(http_bot: tuple[int, str]) -> None:
    port, printed = http_bot
    assert port > 0
    assert f"http://127.0.0.1:{port}/" in printed


def test_serve_http_answers_each_message_on_one_kept_alive_connection(http_bot: tuple[int, str]) -> None:
    port, _ = http_bot
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        start = {"type": "start", "protocol": 1, "game": "punk", "players": 3, "options": {}, "time": {}}
        assert post(connection, start) == (200, {"ready": True})
        socket_used = connection.sock
        status, reply = post(connection, PUNK_ACT)
        assert status == 200 and reply["action"] in PUNK_ACT["legal_actions"]
        assert post(connection, {"type": "end"}) == (200, {})
        assert connection.sock is socket_used, "the connection was not kept alive"
    finally:
        connection.close()


def test_serve_http_answers_500_when_act_raises(http_bot: tuple[int, str], capsys: pytest.CaptureFixture[str]) -> None:
    port, _ = http_bot
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        status, body = post(connection, {**PUNK_ACT, "decision": 99})
    finally:
        connection.close()
    assert status == 500 and "error" in body
    assert "the bot's own bug" in capsys.readouterr().err


def test_the_by_hand_session_is_answered_by_the_sdk() -> None:
    """The ``printf ... | python -m engine.sdk`` lines: real messages, each answered as the page implies."""
    block = section("Trying a bot at home")
    session = re.search(r"printf '%s\\n' \\\n(.*?)\| python -m engine\.sdk", block, re.DOTALL)
    assert session is not None, "the by-hand session is gone"
    messages = [json.loads(line) for line in re.findall(r"'(\{.*?\})'", session.group(1))]
    assert [message["type"] for message in messages] == ["start", "act", "end"]
    act = next(message for message in messages if message["type"] == "act")
    assert set(act) == set(act_message(**{k: v for k, v in act.items() if k != "type"}))
    assert set(act["observation"]) == real_observation_keys(act["game"], act["observation"]["players"])
    replies = [handle(message, load_example(act["game"])) for message in messages]
    assert replies[0] == {"ready": True} and replies[2] is None
    assert replies[1] is not None and replies[1]["action"] in act["legal_actions"]
