"""The replay viewer without a browser (issue 24): a finished game's page carries its public record and nothing
more than the end of the match allows; a game still in play shows no card; an unknown game is the site's 404; the
links from the lists of games; its query count. Drawn and stepped through in chromium: tests/e2e/test_replay.py.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from engine.games import get_game
from engine.record import Record
from engine.verify import expand_views, replay
from tests.factories import PlayerFactory, UserFactory
from tests.tournaments.live_support import live_match
from tests.tournaments.replay_support import finished_bots_game, finished_people_game
from tournaments.models import Entrant, Game, Match
from tournaments.replay_selectors import _replayed_views
from tournaments.web.replays import _script_json

pytestmark = pytest.mark.django_db

CARD_CODE = re.compile(r"^[A2-9TJQK][CDHSUVWXYZ]$")


def replay_page(game_id: int, client: Client | None = None) -> Any:
    return (client or Client()).get(reverse("site:replay", args=[game_id]))


def embedded(html: str, element_id: str) -> Any:
    found = re.search(rf'<script [^>]*id="{element_id}"[^>]*>(.*?)</script>', html, re.S)
    assert found is not None, f"no #{element_id} on the page"
    return json.loads(found.group(1))


def signed_in(player: Any) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def test_a_finished_game_s_page_carries_the_api_s_public_record_and_every_hand_once_the_seed_is_out() -> None:
    game, players = finished_people_game("1923", 2, {"mode": "set"})
    response = replay_page(game.pk)
    assert response.status_code == 200
    html = response.content.decode()
    public = embedded(html, "replay-record")
    assert public == Client().get(f"/api/games/{game.pk}/record/").json()["record"]
    assert "seed" not in public and "deal" not in public
    data = embedded(html, "replay-data")
    assert [seat["name"] for seat in data["seats"]] == [p.display_name for p in players]
    # A live match's seed is revealed at its end: every seat's view, each as long as the public views.
    assert sorted(data["every_views"]) == ["0", "1"]
    assert all(len(views["steps"]) == len(public["actions"]) for views in data["every_views"].values())
    assert data["own_views"] == {} and not data["too_large"]
    assert 'id="slider"' in html and "play/games.js" in html and "play/replay.js" in html


def test_a_seat_s_view_is_what_the_engine_showed_that_seat() -> None:
    game, _ = finished_people_game("punk", 3, {})
    data = embedded(replay_page(game.pk).content.decode(), "replay-data")
    record = Record.from_dict(game.record)
    engine_game = get_game(record.game)
    seen: list[list[Any]] = []
    replay(record, on_step=lambda state: seen.append([engine_game.observation(state, s) for s in range(3)]))
    for seat, views in data["every_views"].items():
        whole = expand_views(views)
        assert len(whole) == len(seen) == len(record.actions) + 1
        assert whole == [json.loads(json.dumps(step[int(seat)])) for step in seen]
        # Punk deals each seat its hand at the start, and a seat sees only its own.
        hand = whole[0]["hand"]
        assert len(hand) > 0 and all(CARD_CODE.match(code) for code in hand)
        others = [v["start"]["hand"] for s, v in data["every_views"].items() if s != seat]
        assert all(not set(hand) & set(other) for other in others)


def test_a_bots_match_shows_the_public_views_only_but_its_owner_their_own_bot_s_seat() -> None:
    game, owners = finished_bots_game("1923", {"mode": "set"})
    data = embedded(replay_page(game.pk).content.decode(), "replay-data")
    assert data["every_views"] == {} and data["own_views"] == {}

    mine = embedded(replay_page(game.pk, signed_in(owners[1])).content.decode(), "replay-data")
    assert list(mine["own_views"]) == ["1"] and mine["every_views"] == {}
    assert [seat["mine"] for seat in mine["seats"]] == [False, True]
    # What the owner is shown of seat 1 holds seat 1's own cards, which the public views never show at the start.
    start = mine["own_views"]["1"]["start"]
    public_start = expand_views(embedded(replay_page(game.pk).content.decode(), "replay-record")["views"])[0]
    assert start["hand"] and start != public_start

    stranger = embedded(replay_page(game.pk, signed_in(PlayerFactory())).content.decode(), "replay-data")
    assert stranger["own_views"] == {} and stranger["every_views"] == {}


def test_a_game_still_being_played_says_so_and_shows_no_card() -> None:
    match, _ = live_match("1923", options={"mode": "set"})
    # A game row of a match not yet done (as a disputed transcript may leave): the page shows none of it.
    finished, _ = finished_people_game("1923", 2, {"mode": "set"})
    Game.objects.filter(pk=finished.pk).update(match=match)
    response = replay_page(finished.pk)
    assert response.status_code == 200
    html = response.content.decode()
    assert "This game is still being played; its replay opens when it ends." in html
    assert "replay-record" not in html and "data-card" not in html
    hands = _replayed_views(Record.from_dict(finished.record), [0, 1])
    dealt = {code for views in hands.values() for code in views["start"]["hand"]}
    assert dealt and not [code for code in dealt if re.search(rf"[\"'>]{code}[\"'<]", html)]
    # The match's first game by number, before it is recorded: the same page.
    waiting_match, _ = live_match("banter")
    waiting = Client().get(reverse("site:match-replay", args=[waiting_match.pk, 1]))
    assert waiting.status_code == 200 and "its replay opens when it ends" in waiting.content.decode()


def test_an_unknown_game_is_the_site_s_404() -> None:
    response = replay_page(987654)
    assert response.status_code == 404
    assert "Card club" in response.content.decode()
    game, _ = finished_people_game("war", 2, {"max_rounds": 30})
    assert Client().get(reverse("site:match-replay", args=[game.match_id, 2])).status_code == 404
    assert Client().get(reverse("site:match-replay", args=[game.match_id + 1000, 1])).status_code == 404


def test_a_match_s_game_number_leads_to_its_replay() -> None:
    game, _ = finished_people_game("war", 2, {"max_rounds": 30})
    response = Client().get(reverse("site:match-replay", args=[game.match_id, 1]))
    assert response.status_code == 302 and response["Location"] == reverse("site:replay", args=[game.pk])


def test_the_page_costs_the_same_queries_for_every_game(django_assert_num_queries: Any) -> None:
    short, players = finished_people_game("war", 2, {"max_rounds": 30})
    long, _ = finished_people_game("punk", 3, {})
    for game in (short, long):
        replay_page(game.pk)  # builds and caches the public record and the seat views
        # The game with its match and competition, who sat where, and the match's games.
        with django_assert_num_queries(3):
            assert replay_page(game.pk).status_code == 200
    client = signed_in(players[0])
    client.get(reverse("site:replay", args=[short.pk]))
    # Signed in: the session, the user, their player and the header's unread count.
    with django_assert_num_queries(7):
        assert client.get(reverse("site:replay", args=[short.pk])).status_code == 200
    assert Match.objects.get(pk=short.match_id).status == Match.Status.DONE


def test_the_lists_of_games_lead_to_the_replay() -> None:
    game, players = finished_people_game("war", 2, {"max_rounds": 30})
    link = f'href="{reverse("site:match-replay", args=[game.match_id, 1])}"'
    person = Client().get(reverse("site:person", args=[players[0].user.get_username()])).content.decode()
    assert link in person
    competition = Client().get(reverse("site:competition", args=[game.match.competition_id])).content.decode()
    assert link in competition

    bots_game, owners = finished_bots_game("war")
    bot = Entrant.objects.get(pk=bots_game.seating[0]).bot_version.bot  # type: ignore[union-attr]
    bot_page = signed_in(owners[0]).get(reverse("site:bot", args=[bot.pk])).content.decode()
    assert f'href="{reverse("site:match-replay", args=[bots_game.match_id, 1])}"' in bot_page

    admin = Client()
    admin.force_login(UserFactory(is_staff=True, is_superuser=True))
    match_page = admin.get(reverse("admin:tournaments_match_change", args=[game.match_id])).content.decode()
    assert link in match_page
    game_page = admin.get(reverse("admin:tournaments_game_change", args=[game.pk])).content.decode()
    assert f'href="{reverse("site:replay", args=[game.pk])}"' in game_page
    game_list = admin.get(reverse("admin:tournaments_game_changelist")).content.decode()
    assert f'href="{reverse("site:replay", args=[game.pk])}"' in game_list


def test_a_cancelled_match_has_no_replay() -> None:
    match, _ = live_match("banter")
    Match.objects.filter(pk=match.pk).update(status=Match.Status.CANCELLED)
    assert Client().get(reverse("site:match-replay", args=[match.pk, 1])).status_code == 404


def test_the_record_cannot_end_its_script_element() -> None:
    # A forfeit's detail is a bot's own words, and the record is written inside a <script> element.
    text = json.dumps({"forfeit": {"detail": "</script><script>alert(1)</script> & more"}}).encode()
    written = str(_script_json(text))
    assert "<" not in written and ">" not in written and "&" not in written
    assert json.loads(written) == json.loads(text)
