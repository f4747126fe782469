"""``python -m engine gauntlet --vs-ladder``: opponents read from a server's /api/tournaments/{id}/opponents/, here a
stand-in on 127.0.0.1 answering as the real endpoint does (that endpoint, and the two together against a running
server: tests/tournaments/test_api_opponents.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from engine.cli import main
from engine.gauntlet import GauntletError
from engine.ladder_opponents import ladder_from_json, opponents_address

ANSWER = {
    "game": "banter",
    "options": {"first_lead": "seed", "max_rounds": 30},
    "opponents": [
        {"rank": 1, "entrant": 4, "name": "Ann's bot", "bot_version": 9, "kind": "builtin", "strategy": "upgrader"},
        {"rank": 2, "entrant": 5, "name": "Bo's bot", "bot_version": 7, "kind": "upload", "strategy": None},
        {"rank": 3, "entrant": 6, "name": "Cy's bot", "bot_version": 8, "kind": "http", "strategy": None, "url": None},
        {"rank": 3, "entrant": 8, "name": "Di's bot", "bot_version": 2, "kind": "builtin", "strategy": "random"},
    ],
}


class Stand:
    """What the stand-in server was asked, and what it answers."""

    def __init__(self) -> None:
        self.status = 200
        self.body: Any = ANSWER
        self.paths: list[str] = []
        self.tokens: list[str | None] = []


@pytest.fixture
def server() -> Iterator[tuple[str, Stand]]:
    stand = Stand()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            stand.paths.append(self.path)
            stand.tokens.append(self.headers.get("Authorization"))
            data = json.dumps(stand.body).encode() if not isinstance(stand.body, bytes) else stand.body
            self.send_response(stand.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", stand
    httpd.shutdown()
    httpd.server_close()


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def go(*argv: str) -> tuple[int, str, str]:
        code = main(["gauntlet", *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return go


def test_the_ladders_playable_bots_become_opponents_in_its_game_and_ruleset(
    server: tuple[str, Stand], run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, stand = server
    monkeypatch.setenv("CARDCLUB_TOKEN", "ignored: --token wins")
    code, out, err = run(
        "random", "--vs-ladder", f"{base}/competitions/12/", "--top", "4", "--token", "abc", "--seed", "2", "--quiet"
    )
    assert code == 0, err
    assert stand.paths == ["/api/tournaments/12/opponents/?top=4"] and stand.tokens == ["Token abc"]
    # The competition's game and ruleset; its built-in bots played, the others named with the reason.
    assert out.startswith("random against upgrader, random at banter (options: first_lead=seed,max_rounds=30), seed 2")
    assert [line.split()[0] for line in out.splitlines()[3:]] == ["upgrader", "random", "overall"]
    assert err.splitlines() == [
        "left out: Bo's bot (rank 2): an uploaded bot, whose code stays on the server",
        "left out: Cy's bot (rank 3): an HTTP bot whose address only its owner sees",
    ]


def test_ladder_opponents_join_those_named_with_vs_and_an_option_overrides_the_ladders(
    server: tuple[str, Stand], run: Run
) -> None:
    base, _ = server
    ladder = f"{base}/api/tournaments/12"
    code, out, _ = run("random", "--vs", "upgrader", "--vs-ladder", ladder, "--option", "max_rounds=20", "--quiet")
    assert code == 0
    assert "random against upgrader, upgrader, random at banter (options: first_lead=seed,max_rounds=20)" in out


def test_an_owners_http_bot_on_the_ladder_is_played_at_its_address() -> None:
    answer = {**ANSWER, "opponents": [{**ANSWER["opponents"][2], "url": "http://127.0.0.1:8080/"}]}  # type: ignore[dict-item]
    ladder = ladder_from_json(answer)
    assert ladder.specs == ["http://127.0.0.1:8080/"] and ladder.skipped == []


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (404, {"detail": "No Competition matches the given query."}, "answered 404: No Competition matches"),
        (400, {"top": ["Ensure this value is less than or equal to 50."]}, "answered 400: Bad Request"),
        (200, b"<html>a page</html>", "did not answer with a list of opponents"),
        (200, {"game": "banter"}, "did not answer with a list of opponents"),
    ],
)
def test_a_server_answer_that_is_no_list_of_opponents_is_one_line_and_exit_2(
    server: tuple[str, Stand], run: Run, status: int, body: Any, message: str
) -> None:
    base, stand = server
    stand.status, stand.body = status, body
    code, out, err = run("random", "--vs-ladder", f"{base}/competitions/12/")
    assert code == 2 and out == ""
    assert message in err and err.startswith("error: --vs-ladder: ") and len(err.strip().splitlines()) == 1


def test_the_wrong_game_no_playable_bot_or_no_server_is_one_line_and_exit_2(
    server: tuple[str, Stand], run: Run
) -> None:
    base, stand = server
    code, _, err = run("random", "--game", "1923", "--vs-ladder", f"{base}/competitions/12/")
    assert code == 2 and err == f"error: --game 1923: the competition {base}/competitions/12/ plays banter\n"
    stand.body = {**ANSWER, "opponents": ANSWER["opponents"][1:3]}  # type: ignore[index]
    code, _, err = run("random", "--vs-ladder", f"{base}/competitions/12/")
    assert (
        code == 2
        and err.splitlines()[-1] == "error: --vs-ladder: none of the competition's top 5 bots can be played here"
    )
    # Port 9 (discard) on loopback: nothing listens there.
    code, _, err = run("random", "--vs-ladder", "http://127.0.0.1:9/competitions/12/")
    assert code == 2 and err.startswith("error: --vs-ladder: cannot reach http://127.0.0.1:9/api/tournaments/12/")


@pytest.mark.parametrize(
    ("given", "address"),
    [
        ("https://club.example.org/competitions/12/", "https://club.example.org/api/tournaments/12/opponents/?top=5"),
        ("http://127.0.0.1:8000/api/tournaments/7", "http://127.0.0.1:8000/api/tournaments/7/opponents/?top=5"),
        ("https://example.org/club/competitions/3/", "https://example.org/club/api/tournaments/3/opponents/?top=5"),
    ],
)
def test_a_competitions_page_or_api_address_leads_to_its_opponents(given: str, address: str) -> None:
    assert opponents_address(given, 5) == address


@pytest.mark.parametrize("given", ["12", "ftp://x/competitions/1/", "https://x.org/competitions/one/", "file:///etc"])
def test_anything_else_is_refused(given: str) -> None:
    with pytest.raises(GauntletError, match="give the competition's address"):
        opponents_address(given, 5)
