"""A bot outside this process (a sandboxed upload or an HTTP endpoint), kept for a whole match.

The transport only moves messages; everything a transport has in common lives
here: the clock, the protocol's messages, and the rule that a bot which failed
once is out for the rest of the match. After a timeout or a crash its process
may still be answering an old question, so asking it again could pair a
late answer with the wrong decision.
"""

from __future__ import annotations

import logging
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from engine.agents import AgentFailure
from engine.clock import Clock, TimeControl
from engine.errors import EngineError, WorkerFault
from engine.protocol import act_message, action_of, check_ready, end_message, start_message

log = logging.getLogger(__name__)

#: Failures after which the bot is not asked again in this match.
_FATAL = frozenset({"timeout", "crash", "bad_output", "init_failure"})


class RemoteBot(ABC):
    def __init__(self, *, game: str, players: int, options: Mapping[str, Any], time_control: TimeControl) -> None:
        self.game = game
        self.players = players
        self.options = dict(options)
        self.clock = Clock(time_control)
        #: Opaque and unique per match: an HTTP bot serving several matches at once tells them apart by it.
        self.match = secrets.token_hex(8)
        self.failure: AgentFailure | None = None
        #: Seconds from launch to the bot's answer to "start"; None until it answered.
        self.start_seconds: float | None = None
        self._started = False
        self._closed = False

    # The transport's part.
    @abstractmethod
    def _launch(self) -> None:
        """Open the process or connection."""

    @abstractmethod
    def _exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one message and return the decoded reply, raising AgentFailure on any failure."""

    @abstractmethod
    def _notify(self, message: dict[str, Any]) -> None:
        """Send a message that has no reply, best effort."""

    @abstractmethod
    def _shutdown(self) -> None:
        """Release everything; idempotent."""

    @property
    def log(self) -> str:
        """What the bot wrote for its owner (stderr), truncated; empty where a transport has none."""
        return ""

    def owner_log(self) -> str:
        """The log as it can be stored anywhere: NUL bytes, which PostgreSQL text refuses, are replaced."""
        return self.log.replace("\x00", "\ufffd")

    # The referee's part.
    def start(self) -> None:
        """Launch the bot and greet it; a failure is kept, and forfeits the bot's first decision."""
        if self._started:
            return
        self._started = True
        began = time.monotonic()
        try:
            self._launch()
            time_left = {**self.clock.remaining(), "start_ms": self.clock.control.start_ms}
            message = start_message(
                match=self.match, game=self.game, players=self.players, options=self.options, time=time_left
            )
            check_ready(self._guarded(message, self.clock.start_allowance()))
        except AgentFailure as failure:
            # Whatever went wrong before the first move, the bot never got going.
            detail = f"{failure.cause}: {failure.detail}" if failure.detail else failure.cause
            self._fail(AgentFailure("init_failure", detail))
            return
        except WorkerFault:
            raise
        except EngineError as exc:
            # Code that passed the upload checks and still cannot be unpacked is the bot's problem too.
            self._fail(AgentFailure("init_failure", str(exc)))
            return
        self.start_seconds = time.monotonic() - began

    def seated(self, seat: int, game_number: int) -> SeatedBot:
        """The agent for one game, at one seat."""
        return SeatedBot(self, seat, game_number)

    def decide(
        self, *, seat: int, game_number: int, decision: int, observation: dict[str, Any], legal_actions: list[str]
    ) -> str:
        self.start()
        if self.failure is not None:
            if self.failure.cause == "init_failure":
                raise self.failure
            raise AgentFailure(self.failure.cause, f"out since an earlier failure in this match: {self.failure.detail}")
        message = act_message(
            match=self.match,
            game=self.game,
            game_number=game_number,
            seat=seat,
            decision=decision,
            observation=observation,
            legal_actions=legal_actions,
            time=self.clock.remaining(),
        )
        allowance = self.clock.allowance()
        began = time.monotonic()
        try:
            reply = self._guarded(message, allowance)
            self.clock.spend(time.monotonic() - began)
            return action_of(reply)
        except AgentFailure as failure:
            if failure.cause in _FATAL:
                self._fail(failure)
            raise

    def _guarded(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One exchange, where anything the bot provokes, even an exception we did not foresee, is its failure.

        Only a :class:`~engine.errors.WorkerFault` (this machine cannot run bots)
        passes through: blaming the bot for that would forfeit games it never played.
        """
        try:
            return self._exchange(message, timeout)
        except (AgentFailure, WorkerFault):
            raise
        except Exception as exc:
            log.exception("a %s transport failed unexpectedly", type(self).__name__)
            raise AgentFailure("crash", f"the bot's answer broke the referee: {type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._started and self.failure is None:
            self._notify(end_message(match=self.match))
        self._shutdown()

    def _fail(self, failure: AgentFailure) -> None:
        self.failure = failure
        self._shutdown()

    def __enter__(self) -> RemoteBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SeatedBot:
    """The :class:`~engine.agents.Agent` the runner sees: one remote bot at one seat of one game."""

    def __init__(self, bot: RemoteBot, seat: int, game_number: int) -> None:
        self.bot = bot
        self.seat = seat
        self.game_number = game_number
        self.decisions = 0

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        decision = self.decisions
        self.decisions += 1
        return self.bot.decide(
            seat=self.seat,
            game_number=self.game_number,
            decision=decision,
            observation=observation,
            legal_actions=legal_actions,
        )
