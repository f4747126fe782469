"""What the runner asks of whoever makes a seat's decisions.

Built-in bots, sandboxed uploads, HTTP bots and people all meet this one
interface. An agent that cannot produce an answer raises :class:`AgentFailure`
with one of the forfeit causes; the runner turns it into a forfeit in the record.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.result import FORFEIT_CAUSES


class Agent(Protocol):
    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        """One decision: an element of ``legal_actions``."""
        ...


class AgentFailure(Exception):
    """The agent failed to decide: the seat forfeits with ``cause``."""

    def __init__(self, cause: str, detail: str = "") -> None:
        if cause not in FORFEIT_CAUSES:
            raise ValueError(f"unknown forfeit cause {cause!r}")
        super().__init__(f"{cause}: {detail}" if detail else cause)
        self.cause = cause
        self.detail = detail


def close_agent(agent: object) -> None:
    """Release an agent's resources (a sandboxed process, a connection) if it holds any."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()
