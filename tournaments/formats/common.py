"""The settings every competition has, whatever its format, declared once like a format's own.

They are the competition's columns (the recording path reads them with plain SQL); a format's own settings
are one JSON document beside them (``Competition.settings``). Both are read by the same function
(tournaments/formats/spec.py), so the API, the admin and the web forms take the same bounds from here.
"""

from __future__ import annotations

from tournaments.formats.base import Draft, Format
from tournaments.formats.spec import Changes, Choice, Flag, Seconds, Spec, WholeNumber
from tournaments.models import Competition

#: More than any club seats; the column would overflow at 2**31.
MAX_ENTRANTS = 100_000

COMPETITION_SETTINGS: Spec = (
    WholeNumber(
        name="players_per_match",
        label="Players at a table",
        help="how many play each match: 2 for two-player games, more where the game seats more",
        default=2,
        minimum=2,
        maximum=12,
        changes=Changes.AT_CREATION,
    ),
    WholeNumber(
        name="games_per_match",
        label="Games in a match",
        help="how many games make one match; seats rotate every game",
        default=1,
        minimum=1,
        maximum=1000,
    ),
    WholeNumber(
        name="max_entrants",
        label="Most players",
        help="entries close at this many; empty for no limit",
        default=None,
        nullable=True,
        minimum=2,
        maximum=MAX_ENTRANTS,
    ),
    Choice(
        name="people_play",
        label="How people play",
        help="live at the site's tables, or with real cards and a transcript afterwards",
        default=Competition.PeoplePlay.LIVE.value,
        choices=tuple((value, str(label)) for value, label in Competition.PeoplePlay.choices),
    ),
    Seconds(
        name="move_seconds",
        label="Time for one decision",
        help="a person's time for one decision at a live table",
        default=300,
        minimum=5,
        maximum=7 * 86400,
    ),
    Seconds(
        name="game_seconds",
        label="Time for a whole game",
        help="a person's time for all their decisions in a game",
        default=3600,
        minimum=10,
        maximum=30 * 86400,
    ),
    Flag(
        name="live_tables_public",
        label="Anyone may watch live tables",
        help="whether anyone may watch live tables; players always see their own",
        default=True,
        changes=Changes.ANY_TIME,
    ),
    Flag(
        name="duplicate_deals",
        label="Duplicate deals (bots only)",
        help="each deal played from every seat in turn, so cards decide less; games in a match must be a "
        "multiple of the players at a table",
        default=False,
    ),
)


def common_checks(draft: Draft) -> dict[str, str]:
    """Refusals of common settings that are each fine alone but not together."""
    refused: dict[str, str] = {}
    if draft.game_seconds < draft.move_seconds:
        refused["game_seconds"] = "must be at least move_seconds: a game's time holds at least one decision"
    if draft.max_entrants is not None and draft.max_entrants < draft.players_per_match:
        refused["max_entrants"] = f"must leave room for at least one match of {draft.players_per_match}"
    elif draft.max_entrants is not None and draft.max_entrants < draft.entered:
        refused["max_entrants"] = f"{draft.entered} entrants have already joined"
    if draft.duplicate_deals:
        if draft.people_play == Competition.PeoplePlay.TRANSCRIPT:
            refused["duplicate_deals"] = 'duplicate deals are dealt by the server: not with people_play "transcript"'
        elif draft.games_per_match % draft.players_per_match:
            refused["duplicate_deals"] = (
                f"each deal is played from all {draft.players_per_match} rotations of the seats: games_per_match "
                f"must be a multiple of {draft.players_per_match}, not {draft.games_per_match}"
            )
        elif draft.people_entered:
            refused["duplicate_deals"] = "people have entered: duplicate deals are for bots"
    return refused


def competition_spec(format: Format) -> Spec:
    """Every setting a competition of ``format`` has: the common ones, then the format's own."""
    return (*COMPETITION_SETTINGS, *format.settings)
