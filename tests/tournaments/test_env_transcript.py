"""A game played through an environment (engine/env) goes in as a transcript and the server verifies it.

Parity by construction: the environment's record is the engine's own, so the server's transcript
check (docs/transcripts.md) takes it as it takes a game written down at a real table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from engine.env import gym_env
from engine.games.punk import deck_for
from tests.league.test_api_support import client_for
from tests.tournaments.transcript_support import shuffled, transcript_match
from tournaments.models import Transcript

pytestmark = pytest.mark.django_db


def test_a_game_played_in_the_gym_environment_is_accepted_and_verified_as_a_transcript(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    match, players = transcript_match("punk", people=3)
    deck = shuffled(deck_for(3), 8)
    # A table deals by hand, so a transcript lists the deal: here the environment starts from one.
    deal = {"hands": [deck[seat::3] for seat in range(3)]}
    env = gym_env("punk", ["tracker", "random"], **match.competition.options)
    observation, _ = env.reset(seed=5, options={"deal": deal})
    done = False
    while not done:
        observation, _, done, _, _ = env.step(int(np.flatnonzero(observation["action_mask"])[-1]))
    record = env.record().to_dict()
    assert record["deal"] == deal
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(players[0].user).post(
            f"/api/matches/{match.pk}/transcripts/", {"game_number": 0, "record": record}, format="json"
        )
    assert response.status_code == 201, response.json()
    transcript = Transcript.objects.get()
    assert transcript.status == Transcript.Status.VERIFIED, transcript.__dict__


@pytest.mark.parametrize(
    ("game", "options", "seed"),
    [("1923", {"mode": "set"}, 21), ("banter", {}, 22)],
    ids=["1923-set", "banter"],
)
def test_a_game_an_environment_dealt_from_a_seed_goes_in_as_its_transcript(
    game: str, options: dict[str, Any], seed: int, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    """No deal given: the environment shuffles from the seed, and ``transcript()`` writes the decks out as a
    table would have dealt them (Banter's reshuffles included), which is what the server asks of a transcript."""
    match, players = transcript_match(game, people=2, options=options)
    env = gym_env(game, ["random"], **match.competition.options)
    observation, _ = env.reset(seed=seed)
    moves = np.random.default_rng(seed)
    done = False
    while not done:
        observation, _, done, _, _ = env.step(int(moves.choice(np.flatnonzero(observation["action_mask"]))))
    seeded, record = env.record(), env.transcript().to_dict()
    assert seeded.deal is None and record["deal"] is not None
    if game == "banter":
        assert any(record["deal"]["reshuffles"].values()), "a Banter game long enough to reshuffle"
    # The seeded record itself is refused: nothing lists the decks the seed shuffled.
    with django_capture_on_commit_callbacks(execute=True):
        refused = client_for(players[0].user).post(
            f"/api/matches/{match.pk}/transcripts/", {"game_number": 0, "record": seeded.to_dict()}, format="json"
        )
    assert refused.status_code == 400 and "deal" in str(refused.json())
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(players[0].user).post(
            f"/api/matches/{match.pk}/transcripts/", {"game_number": 0, "record": record}, format="json"
        )
    assert response.status_code == 201, response.json()
    transcript = Transcript.objects.get()
    assert transcript.status == Transcript.Status.VERIFIED, transcript.__dict__
    assert transcript.record["result"] == seeded.result and transcript.record["actions"] == seeded.actions
