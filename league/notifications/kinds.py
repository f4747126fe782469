"""The kinds of notification: what each tells of, in words for the settings page, and whether it is mailed
unless the person says otherwise."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models


class Kind(models.TextChoices):
    YOUR_TURN = "your_turn", "It is your turn at a table"
    CHALLENGED = "challenged", "Someone challenges you on a ladder"
    CHALLENGE_ANSWERED = "challenge_answered", "Your challenge is accepted, declined or withdrawn"
    CHALLENGE_DEADLINE = "challenge_deadline", "A challenge's deadline is near"
    ROUND_PAIRED = "round_paired", "A new round of your competition is paired"
    MATCH_RECORDED = "match_recorded", "Your match is over, with its result"
    COMPETITION_STARTED = "competition_started", "A competition you entered starts"
    COMPETITION_FINISHED = "competition_finished", "A competition you entered is finished"
    JOIN_REQUEST = "join_request", "Someone asks to join your club (organisers)"
    DISPUTE = "dispute", "A written-down game is disputed (organisers and referees)"
    BOT_REFUSED = "bot_refused", "A new version of your bot failed its test game"
    BOT_CRASHING = "bot_crashing", "Your bot keeps crashing in its matches"
    BOT_SUSPENDED = "bot_suspended", "Your bot is suspended for failing most of its recent games"


@dataclass(frozen=True)
class Defaults:
    """What a person gets of a kind until they change it."""

    site: bool = True
    mail: bool = True


#: Mailed by default: what needs the person's answer or tells them of their own games. The rest waits in the
#: inbox until they ask for mail of it (a round paired, a competition starting: the page shows them too).
DEFAULTS: dict[str, Defaults] = {
    Kind.YOUR_TURN: Defaults(),
    Kind.CHALLENGED: Defaults(),
    Kind.CHALLENGE_ANSWERED: Defaults(),
    Kind.CHALLENGE_DEADLINE: Defaults(),
    Kind.ROUND_PAIRED: Defaults(mail=False),
    Kind.MATCH_RECORDED: Defaults(mail=False),
    Kind.COMPETITION_STARTED: Defaults(mail=False),
    Kind.COMPETITION_FINISHED: Defaults(mail=False),
    Kind.JOIN_REQUEST: Defaults(),
    Kind.DISPUTE: Defaults(),
    Kind.BOT_REFUSED: Defaults(),
    Kind.BOT_CRASHING: Defaults(),
    Kind.BOT_SUSPENDED: Defaults(),
}
