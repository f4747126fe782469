"""The environments (engine/env) against PettingZoo's and Gymnasium's own checks, and what they promise:
seeds give the engine's deal, masks are the legal actions, observations are the engine's own, rewards
are score rates, the engine's seats are never agents, and every game they play is an engine record."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

from engine.env import WAIT, ActionSpaceError, SeedError, TableError, aec_env, encoder_for, gym_env, parallel_env
from engine.errors import PlayerCountError
from engine.games import get_game, register_game, unregister_game
from engine.games.war import observation as war_observation
from engine.verify import verify

#: (game, seats, options): every game, and a few rulesets each.
RULESETS = [
    ("war", 2, {}),
    ("war", 2, {"max_rounds": 50}),
    ("1923", 2, {}),
    ("1923", 3, {"mode": "set", "tiebreak_exhausted": "dead"}),
    ("1923", 4, {"mode": "set", "decks": 2}),
    ("banter", 2, {}),
    ("banter", 2, {"first_lead": "1", "max_rounds": 3}),
    ("punk", 3, {"dummy": True}),
    ("punk", 4, {}),
    ("punk", 6, {"target": 15}),
]
IDS = [
    f"{game}-{seats}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'defaults'}"
    for game, seats, options in RULESETS
]


def people(game: str, seats: int, options: dict[str, Any]) -> int:
    return seats - (1 if options.get("dummy") else 0)


@pytest.fixture
def quiet() -> Iterator[None]:
    # PettingZoo's checks warn of what they cannot know is intended: dict observations ("not a NumPy array"),
    # and an all-zero action mask (a seat with nothing to decide now, as a locked 1923 seat in the parallel API).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.usefixtures("quiet")
@pytest.mark.parametrize(("game", "seats", "options"), RULESETS, ids=IDS)
def test_pettingzoo_aec_api_test_passes(game: str, seats: int, options: dict[str, Any]) -> None:
    api_test(aec_env(game, seats, **options), num_cycles=300)


@pytest.mark.usefixtures("quiet")
@pytest.mark.parametrize(("game", "seats", "options"), RULESETS, ids=IDS)
def test_pettingzoo_parallel_api_test_passes(game: str, seats: int, options: dict[str, Any]) -> None:
    parallel_api_test(parallel_env(game, seats, **options), num_cycles=300)


@pytest.mark.parametrize(("game", "seats", "options"), RULESETS, ids=IDS)
def test_gymnasium_check_env_passes(game: str, seats: int, options: dict[str, Any]) -> None:
    env = gym_env(game, ["random"] * (people(game, seats, options) - 1), players=seats, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium's checker warns of anything doubtful: none here
        check_env(env, skip_render_check=True)
    env.close()


# --- a game registered from outside the engine -------------------------------------------------------


@pytest.fixture
def high_card() -> Iterator[None]:
    register_game("highcard", "tests.engine.high_card")
    yield
    unregister_game("highcard")


@pytest.mark.usefixtures("high_card", "quiet")
def test_a_game_registered_from_the_tests_gets_all_three_environments() -> None:
    api_test(aec_env("highcard", 3, hand_size=5), num_cycles=100)
    parallel_api_test(parallel_env("highcard", 4), num_cycles=100)
    check_env(gym_env("highcard", ["random"], hand_size=13), skip_render_check=True)
    env = aec_env("highcard", 2)
    assert env.table.actions.labels == tuple(f"PLAY {card}" for card in get_game("highcard").full_deck({}, 2))
    played = play_aec(env, seed=3)
    assert verify(played).ok and played.game == "highcard"


# --- seeds, observations, masks --------------------------------------------------------------------


def play_aec(env: Any, seed: int, choose: Any = None) -> Any:
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
        else:
            mask = observation["action_mask"]
            env.step(choose(observation) if choose else int(rng.choice(np.flatnonzero(mask))))
    return env.record()


def test_a_seed_is_the_engines_seed_and_deals_the_engines_deal() -> None:
    env = aec_env("punk", 4)
    env.reset(seed=41)
    game = get_game("punk")
    start = game.new_state(game.parse_options(None, 4), 4, 41)
    for agent in env.agents:
        seat = int(agent.removeprefix("seat_"))
        assert env.infos[agent]["observation"] == game.observation(start, seat)
    record = play_aec(env, seed=41)
    assert record.seed == 41 and record.deal is None and verify(record).ok
    assert play_aec(aec_env("punk", 4), seed=41).to_json() == record.to_json()


def test_without_a_seed_the_stream_of_the_last_seed_repeats() -> None:
    first, second = aec_env("1923", 2, mode="set"), aec_env("1923", 2, mode="set")
    for env in (first, second):
        env.reset(seed=8)
        env.reset()
    assert first.record().seed == second.record().seed != 8


def test_the_observation_is_the_engine_observation_encoded_and_the_mask_its_legal_actions() -> None:
    env = aec_env("banter")
    encoder = encoder_for(env.table.game, env.table.options, 2)
    env.reset(seed=2)
    for steps, agent in enumerate(env.agent_iter()):
        observation, _, terminated, _, info = env.last()
        if terminated:
            env.step(None)
            continue
        assert observation["observation"].dtype == np.float32
        assert np.array_equal(observation["observation"], encoder.encode(info["observation"]))
        legal = [env.table.actions.labels[i] for i in np.flatnonzero(observation["action_mask"])]
        assert sorted(legal) == sorted(info["legal_actions"])
        assert info["observation"]["seat"] == int(agent.removeprefix("seat_"))
        env.step(int(np.flatnonzero(observation["action_mask"])[-1]))
        if steps > 200:
            break


def test_the_vector_never_shows_what_the_seat_cannot_see() -> None:
    """Two deals alike from seat 0 (its own hand; the others' hands swapped) encode alike for seat 0, and
    differently for seat 1, whose hand differs: the vector is made from the seat's observation alone."""
    clubs, diamonds, hearts = (["A" + suit, *(f"{rank}{suit}" for rank in "234567")] for suit in "CDH")
    vectors: dict[str, list[Any]] = {"seat_0": [], "seat_1": []}
    for deal in ({"hands": [clubs, diamonds, hearts]}, {"hands": [clubs, hearts, diamonds]}):
        env = aec_env("punk", 3)
        env.reset(seed=1, options={"deal": deal})
        for agent, seen in vectors.items():
            seen.append(env.observe(agent)["observation"])
    assert np.array_equal(vectors["seat_0"][0], vectors["seat_0"][1])
    assert not np.array_equal(vectors["seat_1"][0], vectors["seat_1"][1])


def test_the_encoding_has_a_fixed_length_per_ruleset_and_describes_every_slot() -> None:
    for game, seats, options in RULESETS:
        module = get_game(game)
        parsed = module.parse_options(options, seats)
        encoder = encoder_for(module, parsed, seats)
        rows = encoder.describe()
        assert sum(row["size"] for row in rows) == encoder.size
        assert [row["offset"] for row in rows] == [sum(r["size"] for r in rows[:i]) for i in range(len(rows))]
        env = aec_env(game, seats, **options)
        assert env.observation_space("seat_0")["observation"].shape == (encoder.size,)
    punk = {
        row["key"]: row
        for row in encoder_for(get_game("punk"), get_game("punk").parse_options(None, 4), 4).describe()
        if row["part"] == "cards"
    }
    assert punk["hand"]["labels"][:3] == ("AC", "2C", "3C") and punk["hand"]["size"] == 28


# --- seats, rewards, forfeits ----------------------------------------------------------------------


def test_the_dummy_is_never_an_agent_and_the_people_share_the_rewards() -> None:
    env = aec_env("punk", 3, dummy=True)
    assert env.possible_agents == ["seat_0", "seat_1"]
    env.reset(seed=5)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, _, _ = env.last()
        totals[agent] += reward
        env.step(None if terminated else int(np.flatnonzero(observation["action_mask"])[0]))
    record = env.record()
    assert verify(record).ok
    assert all(len(step) == 3 for step in record.actions)  # the engine played the dummy's card in every trick
    assert sorted(totals.values()) in ([0.0, 1.0], [0.5, 0.5])
    ranks = record.result["ranks"]  # type: ignore[index]
    assert (totals["seat_0"] > totals["seat_1"]) == (ranks[0] < ranks[1])


def test_rewards_are_score_rates_among_four() -> None:
    env = parallel_env("punk", 4)
    observations, _ = env.reset(seed=12)
    rewards: dict[str, float] = {}
    while env.agents:
        actions = {agent: int(np.flatnonzero(observations[agent]["action_mask"])[0]) for agent in env.agents}
        observations, rewards, terminations, _, _ = env.step(actions)
    assert all(terminations.values())
    ranks = env.record().result["ranks"]  # type: ignore[index]
    for seat, rank in enumerate(ranks):
        below = sum(1 for other in ranks if other > rank)
        level = sum(1 for other in ranks if other == rank) - 1
        assert rewards[f"seat_{seat}"] == (below + level / 2) / 3


def test_an_illegal_action_forfeits_as_on_the_server_and_the_record_says_so() -> None:
    env = aec_env("banter")
    env.reset(seed=3)
    observation, *_ = env.last()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    loser = env.agent_selection
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[loser] == 0.0 and sum(env.rewards.values()) == 1.0
    record = env.record()
    assert record.forfeit is not None and record.forfeit.cause == "illegal_action"
    assert verify(record).ok


def test_an_action_outside_the_space_is_a_clear_error_and_changes_nothing() -> None:
    env = aec_env("1923", 2)
    env.reset(seed=1)
    for wrong, message in ((2, "outside 0 to 1"), ("DRAW", "an action is an index"), (True, "an action is an index")):
        with pytest.raises(ActionSpaceError, match=message):
            env.step(wrong)
    assert not any(env.terminations.values()) and env.record().actions == []


def test_a_parallel_step_needs_every_seat_the_step_asks() -> None:
    env = parallel_env("punk", 3)
    env.reset(seed=1)
    with pytest.raises(TableError, match="seat_2 must act in this step"):
        env.step({"seat_0": 0, "seat_1": 0})


def test_war_is_each_seat_waiting_once_then_the_engines_game() -> None:
    env = aec_env("war")
    assert env.table.actions.labels == (WAIT,)
    env.reset(seed=1)
    start = get_game("war").new_state(get_game("war").parse_options(None, 2), 2, 1)
    assert env.infos["seat_0"]["observation"] == war_observation(start, 0)
    record = play_aec(env, seed=1)
    assert record.actions == [[]] and verify(record).ok


# --- the single-agent environment ------------------------------------------------------------------


def test_the_learner_plays_against_built_in_bots_by_name() -> None:
    env = gym_env("punk", "tracker,random,random", seat=2)
    assert env.opponent_seats == (0, 1, 3)
    observation, info = env.reset(seed=9)
    assert info["observation"]["seat"] == 2
    done, reward = False, 0.0
    while not done:
        observation, reward, done, _, info = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    record = env.record()
    assert verify(record).ok and info["result"] == record.result
    ranks = record.result["ranks"]  # type: ignore[index]
    assert reward == (sum(1 for r in ranks if r > ranks[2]) + (sum(1 for r in ranks if r == ranks[2]) - 1) / 2) / 3


def test_the_single_agent_game_is_the_one_the_runner_plays_with_the_same_bots() -> None:
    """Parity: the learner playing what a built-in bot would play gives that bot's game, byte for byte."""
    from engine.bots import make_bot, seat_agents
    from engine.runner import play_game

    env = gym_env("1923", ["counter"], mode="set")
    mine = make_bot("counter", game="1923", seat=0, players=2, options=env.table.options, seed=21)
    _, info = env.reset(seed=21)
    done = False
    while not done:
        action = mine.act(info["observation"], info["legal_actions"])
        _, _, done, _, info = env.step(env.table.actions.index_of(action))
    expected = play_game(
        "1923",
        agents=seat_agents("1923", ["counter", "counter"], {"mode": "set"}, 21),
        seed=21,
        options={"mode": "set"},
    )
    assert env.record().to_json() == expected.to_json()


def test_bad_opponents_are_refused_with_a_plain_message() -> None:
    with pytest.raises(PlayerCountError, match="punk with 4 seats has 3 opponent seat"):
        gym_env("punk", ["random"], players=4)
    with pytest.raises(PlayerCountError, match="seat 2 is not a person's seat"):
        gym_env("punk", ["random"], seat=2, dummy=True)
    with pytest.raises(ValueError, match="unknown bot 'clever' for banter: choose one of random, upgrader"):
        gym_env("banter", ["clever"])


def test_an_opponent_that_fails_forfeits_and_the_learner_wins() -> None:
    from engine.agents import AgentFailure

    class Crashes:
        def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
            raise AgentFailure("crash", "boom")

    env = gym_env("banter", [Crashes()], first_lead="0")
    observation, _ = env.reset(seed=4)
    done, reward = False, 0.0
    while not done:
        observation, reward, done, _, _ = env.step(int(np.flatnonzero(observation["action_mask"])[-1]))
    record = env.record()
    assert record.forfeit is not None and (record.forfeit.seat, record.forfeit.cause) == (1, "crash")
    assert reward == 1.0 and verify(record).ok


def test_an_opponent_that_fails_before_the_learners_first_move_ends_the_game_at_the_first_step() -> None:
    from engine.agents import AgentFailure

    class CannotStart:
        def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
            raise AgentFailure("init_failure", "no such file")

    env = gym_env("banter", [CannotStart()], first_lead="1")
    _, info = env.reset(seed=4)
    assert info["result"]["forfeit"] == {"seat": 1, "cause": "init_failure", "move": 0, "detail": "no such file"}
    _, reward, done, _, _ = env.step(0)
    assert (reward, done) == (1.0, True) and verify(env.record()).ok
    with pytest.raises(TableError, match="the game is over: call reset"):
        env.step(0)


def test_a_seed_may_be_a_numpy_whole_number_but_not_a_negative_or_a_bool() -> None:
    for env in (aec_env("punk", 3), parallel_env("punk", 3), gym_env("punk", ["random"], dummy=True)):
        env.reset(seed=np.int64(12))
        assert env.record().seed == 12
        for wrong in (-1, True, 2.5, 2**63):
            with pytest.raises(SeedError, match="a seed is a whole number from 0 up"):
                env.reset(seed=wrong)
