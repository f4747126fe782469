"""Competitions and what is played in them: rounds, matches, games, sets, standings, ratings."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.db.models.functions import Now

from league.models import BotVersion, Club, Player, game_choices
from tournaments.fields import JSONTextField


class Competition(models.Model):
    class PeoplePlay(models.TextChoices):
        LIVE = "live", "Live, dealt and refereed by the server"
        TRANSCRIPT = "transcript", "With real cards, from verified transcripts"

    class Status(models.TextChoices):
        OPEN = "open"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class Seeding(models.TextChoices):
        """How a knockout's seeds are set when its start does not give them by hand."""

        ENTRY = "entry", "The order players entered"
        RATING = "rating", "By rating, from the club's latest other competition of this game"
        STANDINGS = "standings", "From another competition's final table"

    class ByePoints(models.TextChoices):
        """What an entrant left without a table in a round (a Swiss bye) scores."""

        WIN = "win", "A win's points"
        DRAW = "draw", "A draw's points"
        NONE = "none", "No points"

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="competitions")
    name = models.CharField(max_length=120)
    game = models.CharField(max_length=10, choices=game_choices)
    #: The full ruleset, validated and completed by the engine (every option with its value).
    options = models.JSONField(default=dict, blank=True)
    #: A registered format's key (tournaments/formats/registry.py), which decides who meets whom.
    format = models.CharField(max_length=24, default="round_robin")
    #: The format's own settings, as its spec declares them (tournaments/formats/), complete once created.
    settings = models.JSONField(default=dict, blank=True)
    #: Participants per match: 2 for War and Banter, 2 or more for 1923, 3 or more people for Punk.
    players_per_match = models.PositiveSmallIntegerField(default=2)
    games_per_match = models.PositiveIntegerField(default=1)
    max_entrants = models.PositiveIntegerField(null=True, blank=True)
    seed = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    organisers = models.ManyToManyField(Player, related_name="organised_competitions", blank=True)
    created_by = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="created_competitions")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: Bumped with every recorded match: cached tables keyed by it can never be stale.
    results_version = models.PositiveIntegerField(default=0)
    # Refereed play: how people play their matches, and the clocks of live tables.
    people_play = models.CharField(max_length=12, choices=PeoplePlay.choices, default=PeoplePlay.LIVE)
    #: A seat's time for one decision at a live table.
    move_seconds = models.PositiveIntegerField(default=300)
    #: A seat's time for all its decisions in one game.
    game_seconds = models.PositiveIntegerField(default=3600)
    #: Whether anyone may watch a live table (the spectator's view); participants always see their own.
    live_tables_public = models.BooleanField(default=True)
    #: Confirm transcripts and settle disputes for this competition, granted by its organisers.
    referees = models.ManyToManyField(Player, related_name="refereed_competitions", blank=True)
    #: Each deal played once from every rotation of the seats (engine/match.py): games_per_match is a
    #: multiple of players_per_match, and a match is decided by play rather than by the cards.
    duplicate_deals = models.BooleanField(default=False)
    #: The competition a stage cut to, made when the stage finished (tournaments/formats/stages.py).
    next_stage = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="previous_stage"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["game", "status"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


class Entrant(models.Model):
    """A bot version or a person in one competition."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="entrants")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, null=True, blank=True)
    player = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True)
    #: Shown in standings; copied at entry so renaming a bot does not rewrite history.
    name = models.CharField(max_length=120)
    joined_at = models.DateTimeField(auto_now_add=True)
    #: A challenge ladder's place, 1 at the top; empty elsewhere and once the entrant has left.
    position = models.PositiveIntegerField(null=True, blank=True)
    #: A knockout's seed, 1 the best; set at its start.
    seed = models.PositiveIntegerField(null=True, blank=True)
    #: When the entrant left a running ladder (or its bot was retired): it plays no more, its results stay.
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["competition_id", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(bot_version__isnull=True, player__isnull=False)
                | Q(bot_version__isnull=False, player__isnull=True),
                name="entrant_is_a_bot_version_or_a_player",
            ),
            models.UniqueConstraint(
                fields=["competition", "bot_version"],
                condition=Q(bot_version__isnull=False),
                name="bot_version_enters_once",
            ),
            models.UniqueConstraint(
                fields=["competition", "player"], condition=Q(player__isnull=False), name="player_enters_once"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Round(models.Model):
    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["competition_id", "number"]
        constraints = [models.UniqueConstraint(fields=["competition", "number"], name="round_number_unique")]

    def __str__(self) -> str:
        return f"round {self.number}"


class Match(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        #: People play it: at live tables, or at a real table with transcripts to follow.
        LIVE = "live"
        DONE = "done"
        ERROR = "error"
        CANCELLED = "cancelled"

    #: A match in one of these will not change any more; a round is over once all its matches are.
    OVER = (Status.DONE, Status.CANCELLED)

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="matches")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    seed = models.BigIntegerField()
    error = models.TextField(blank=True)
    #: Set once the match's result has gone into the ratings, which apply in (round, id) order.
    rated = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    #: When a task for it was last sent to the broker; a pending match queued long ago lost its task.
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    #: A running match's worker touches this every few seconds; a stale one means the worker died.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    #: Claims so far: a match that keeps killing its worker is given up on, not retried forever.
    attempts = models.PositiveSmallIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: A live match's step counter: grows with every applied step and every other change of its tables.
    version = models.PositiveIntegerField(default=0)
    #: Secret until the match ends: with each game's seed it gives the published commitment.
    salt = models.CharField(max_length=64, blank=True)
    #: Published when a live match starts: engine.fairness.commitment of each game's seed, by game number.
    commitments = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["round__number", "id"]
        verbose_name_plural = "matches"
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="match_number_unique_in_round")]
        indexes = [
            models.Index(fields=["competition", "status"]),
            models.Index(fields=["competition", "rated"]),
        ]

    def __str__(self) -> str:
        return f"match {self.id}"


class MatchParticipant(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="participants")
    entrant = models.ForeignKey(Entrant, on_delete=models.PROTECT, related_name="participations")
    #: Seat in the match's first game; seats rotate every game.
    seat = models.PositiveSmallIntegerField()
    #: Summed game score rates (display), match rank, and match points in exact units (see Standing).
    score = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    match_units = models.IntegerField(null=True, blank=True)
    #: The entrant's rating once this match was rated (null until then): its rating history, point by
    #: point, written in the same transaction as the standings' rating, so it is as exactly-once.
    mu_after = models.FloatField(null=True, blank=True)
    sigma_after = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["match_id", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "entrant"], name="participant_once_per_match"),
            models.UniqueConstraint(fields=["match", "seat"], name="one_participant_per_seat"),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat} of match {self.match_id}"


class Game(models.Model):
    # No index of its own: the (match, number) unique index serves every lookup by match, and
    # each index is paid for on every one of the many game rows written.
    # No database constraint either: PostgreSQL checked it with a lookup and a key-share lock of the
    # match row for every game row at commit, which cost as much as writing the row. Games are
    # written only by the recording service, for the match it is recording, and nothing in the
    # service deletes a match (results are history: the admin site and the API refuse); deleting
    # one through the ORM still deletes its games first (CASCADE is Django's, not the database's).
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="games", db_index=False, db_constraint=False
    )
    number = models.PositiveIntegerField()
    #: Entrant ids by seat (null for a seat the engine plays).
    seating = JSONTextField()
    seed = models.BigIntegerField()
    deal = models.JSONField(null=True, blank=True)
    options = JSONTextField()
    #: The engine's compact record: enough to replay the game exactly. Text, not jsonb: it is
    #: written in bulk and read whole (tournaments/fields.py).
    record = JSONTextField()
    result = JSONTextField()
    #: No database constraint: checking it cost PostgreSQL a lookup per game row written. The winner
    #: is always one of the match's participants, whose rows keep a constrained key to the same entrant
    #: (and the ORM still refuses to delete an entrant who won a game).
    winner = models.ForeignKey(
        Entrant,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    #: Filled in by the database (the time of the statement that wrote the row): a timestamp sent
    #: with each of thousands of rows is parsed once per row.
    recorded_at = models.DateTimeField(db_default=Now())

    class Meta:
        ordering = ["match_id", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="game_number_unique_in_match")]

    def __str__(self) -> str:
        return f"game {self.number} of match {self.match_id}"


class MatchSet(models.Model):
    """A 1923 set, or a Banter round, of one game: per-entrant figures."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="sets")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="sets")
    number = models.PositiveIntegerField()
    #: By entrant id: 1923 ``{"cards", "aces", "points"}``, Banter ``{"points", "total"}``.
    scores = models.JSONField()
    #: Banter: both sides had passed 40 level, so this round was played on.
    play_on = models.BooleanField(default=False)

    class Meta:
        ordering = ["game_id", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="set_number_unique_in_game")]

    def __str__(self) -> str:
        return f"set {self.number} of game {self.game_id}"


def units_per_point(players_per_match: int) -> int:
    return 2 * (players_per_match - 1)


class Standing(models.Model):
    """One entrant's row in a competition's table, kept current as each match is recorded."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="standings")
    entrant = models.OneToOneField(Entrant, on_delete=models.CASCADE, related_name="standing")
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    drawn = models.PositiveIntegerField(default=0)
    lost = models.PositiveIntegerField(default=0)
    #: Match points in exact units of 1 / (2 × (players per match − 1)): a two-player win is 2, a draw 1.
    #: Score rates like 1/3 have no exact decimal, and ties between rows must be exact.
    match_units = models.IntegerField(default=0)
    #: The part of match_units that came from byes (a Swiss's rounds without a table): no match was played.
    bye_units = models.IntegerField(default=0)
    games_played = models.PositiveIntegerField(default=0)
    games_won = models.PositiveIntegerField(default=0)
    # The game's own figures, in the order its league profile lists them (league/standings.py):
    # slots rather than a JSON field, so that recording adds to them in one UPDATE and the
    # table sorts on them in SQL.
    figure_1 = models.IntegerField(default=0)
    figure_2 = models.IntegerField(default=0)
    figure_3 = models.IntegerField(default=0)
    figure_4 = models.IntegerField(default=0)
    # The rating, per game and competition (openskill); ordinal = mu - 3 sigma.
    mu = models.FloatField(default=25.0)
    sigma = models.FloatField(default=25.0 / 3)
    ordinal = models.FloatField(default=0.0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["competition_id", "-match_units"]
        indexes = [models.Index(fields=["competition", "-match_units"])]

    def __str__(self) -> str:
        return f"standing of entrant {self.entrant_id}"


class BotRun(models.Model):
    """An uploaded or HTTP bot's part in one match: how it ended and its log, for its owner's eyes only."""

    participant = models.OneToOneField(MatchParticipant, on_delete=models.CASCADE, related_name="bot_run")
    #: The forfeit cause that put the bot out of the match, if one did.
    failure = models.CharField(max_length=20, blank=True)
    detail = models.TextField(blank=True)
    #: The bot's stderr (uploads) or transport errors (HTTP), truncated.
    log = models.TextField(blank=True)
    start_ms = models.FloatField(null=True, blank=True)

    def __str__(self) -> str:
        return f"bot run of {self.participant}"


class LiveTable(models.Model):
    """One game of a live match, stored after every applied step (DESIGN.md, "People at the table").

    ``game`` holds the engine's whole :class:`engine.referee.LiveGame`, deal included: it is
    never served, only the seat views built from it.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="live_tables")
    number = models.PositiveIntegerField()
    #: Participant index by seat (null for a seat the engine plays), as in Game.seating.
    seating = models.JSONField()
    game = models.BinaryField()
    #: The engine's record once the game is over; written into a Game row when the match is recorded.
    record = models.JSONField(null=True, blank=True)
    #: When the seats now to act were first asked; their clocks run from here.
    turn_started_at = models.DateTimeField()
    #: The match's version when the current decision opened: a move made on an older table is stale,
    #: while moves on any table since (another seat's choice in a simultaneous step) are not.
    decision_version = models.PositiveIntegerField(default=0)
    #: Milliseconds each seat has spent deciding in this game.
    clock_used_ms = models.JSONField()
    #: The earliest moment a seat now to act runs out of time; the clock task looks here.
    deadline = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: The people now to act who have been told it is their turn (tournaments/services/live_turns.py), each
    #: by player id (a string: JSON's keys are) to the id of their "your turn" notification, or 0 if their
    #: settings wrote none. A person's entry goes when their turn passes, and with it the notification if it
    #: was never mailed: a turn already played is no news.
    turn_notices = models.JSONField(default=dict, blank=True)
    #: When the people now to act who have not been told are to be told: at a correspondence pace, a quiet
    #: while after their turn began (the sweep looks here); null when nobody waits to be told.
    tell_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match_id", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="live_table_number_unique")]
        indexes = [
            models.Index(fields=["deadline"], name="live_table_deadline"),
            models.Index(fields=["tell_at"], condition=Q(tell_at__isnull=False), name="live_table_tell_at"),
        ]

    def __str__(self) -> str:
        return f"live game {self.number} of match {self.match_id}"


class LiveMove(models.Model):
    """A decision taken at a live table: the log of play, and what makes a retried submission harmless."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="live_moves")
    game_number = models.PositiveIntegerField()
    #: The index of the game's step this decision belongs to.
    step = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    #: Who decided: a person, or a bot entrant whose decision the workers made.
    entrant = models.ForeignKey(Entrant, on_delete=models.PROTECT, related_name="live_moves")
    action = models.CharField(max_length=200)
    client_move_id = models.CharField(max_length=64)
    #: The match's version once this move was taken.
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "entrant", "client_move_id"], name="client_move_id_once"),
        ]

    def __str__(self) -> str:
        # Not the action: a choice in a simultaneous step is secret until the step is applied.
        return f"move {self.step} of game {self.game_number} by seat {self.seat} in match {self.match_id}"


class Transcript(models.Model):
    """A game played with real cards, as a participant wrote it down: checked by the engine, then confirmed."""

    class Status(models.TextChoices):
        SUBMITTED = "submitted"
        VERIFIED = "verified"
        REJECTED = "rejected"
        ACCEPTED = "accepted"
        DISPUTED = "disputed"
        VOIDED = "voided"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="transcripts")
    number = models.PositiveIntegerField()
    #: Which game of the match it is (seats rotate every game, engine.match.seating_for).
    game_number = models.PositiveIntegerField(default=0)
    submitted_by = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="transcripts")
    #: The record exactly as submitted (docs/records.md).
    record = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SUBMITTED)
    #: Why it was rejected (the first broken step) or voided.
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["match_id", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="transcript_number_unique")]

    def __str__(self) -> str:
        return f"transcript {self.number} of match {self.match_id}"


class TranscriptConfirmation(models.Model):
    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="confirmations")
    entrant = models.ForeignKey(Entrant, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["transcript", "entrant"], name="confirm_once")]

    def __str__(self) -> str:
        return f"{self.entrant_id} confirms {self.transcript_id}"


class TranscriptEvent(models.Model):
    """The audit trail: every status change of a transcript, who made it (null: the verifier) and when."""

    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    action = models.CharField(max_length=20)
    from_status = models.CharField(max_length=10, blank=True)
    to_status = models.CharField(max_length=10)
    note = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["transcript_id", "id"]

    def __str__(self) -> str:
        return f"{self.action} on transcript {self.transcript_id}"


class Challenge(models.Model):
    """One challenge up a challenge ladder: who challenged whom, how it ended, and the places it changed.

    The defenders are the entrant challenged (two-player games) or the ``challenge_reach`` entrants
    directly above the challenger (multiplayer games). Its history is the ladder's history.
    """

    class Status(models.TextChoices):
        #: Waiting for every defender to accept.
        ISSUED = "issued"
        #: Accepted: its match is being played.
        ACCEPTED = "accepted"
        #: Its match was recorded and the places reordered by it.
        PLAYED = "played"
        #: A defender declined: that defender forfeits.
        DECLINED = "declined"
        #: Not accepted by the deadline: the defenders who had not accepted forfeit.
        FORFEITED = "forfeited"
        #: Accepted but not played by the deadline: its match is cancelled and no place changes.
        EXPIRED = "expired"
        #: Taken back by the challenger before it was accepted.
        WITHDRAWN = "withdrawn"
        #: The competition was cancelled, or its match was, before it was played.
        CANCELLED = "cancelled"

    #: A challenge in one of these holds its entrants: none of them may be in another.
    OPEN = (Status.ISSUED, Status.ACCEPTED)

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="challenges")
    #: 1, 2, ... within the competition: the n of /api/tournaments/{id}/challenges/{n}/.
    number = models.PositiveIntegerField()
    challenger = models.ForeignKey(Entrant, on_delete=models.PROTECT, related_name="challenges_made")
    issued_by = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="challenges_issued")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ISSUED)
    issued_at = models.DateTimeField()
    #: Accept and play by then, or forfeit (Celery beat applies it).
    deadline = models.DateTimeField()
    reminded_at = models.DateTimeField(null=True, blank=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    match = models.OneToOneField(Match, on_delete=models.PROTECT, null=True, blank=True, related_name="challenge")
    #: How it ended, in words: who won, who forfeited and why.
    outcome = models.TextField(blank=True)
    #: The places it decided: the block of the ladder from ``top_place`` down, as entrant ids,
    #: before and after (equal when nothing moved); empty until it is decided.
    top_place = models.PositiveIntegerField(null=True, blank=True)
    places_before = models.JSONField(default=list, blank=True)
    places_after = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["competition_id", "-number"]
        constraints = [models.UniqueConstraint(fields=["competition", "number"], name="challenge_number_unique")]
        indexes = [models.Index(fields=["status", "deadline"], name="challenge_due")]

    def __str__(self) -> str:
        return f"challenge {self.number}"


class ChallengeSide(models.Model):
    """An entrant in a challenge: the challenger or a defender, and whether it has accepted."""

    class Role(models.TextChoices):
        CHALLENGER = "challenger"
        DEFENDER = "defender"

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="sides")
    entrant = models.ForeignKey(Entrant, on_delete=models.PROTECT, related_name="challenge_sides")
    role = models.CharField(max_length=10, choices=Role.choices)
    #: The entrant's place when the challenge was issued.
    place = models.PositiveIntegerField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    #: True while the challenge is open: the database holds each entrant to one open challenge.
    open = models.BooleanField(default=True)

    class Meta:
        ordering = ["challenge_id", "place"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "entrant"], name="challenge_side_once"),
            models.UniqueConstraint(fields=["entrant"], condition=Q(open=True), name="one_open_challenge_per_entrant"),
        ]

    def __str__(self) -> str:
        return f"{self.role} of challenge {self.challenge_id}"


class CalendarFeed(models.Model):
    """A person's private calendar address (/calendar/<token>.ics): whoever has the address reads the feed.

    The row keeps no usable secret: the token is an HMAC of ``nonce`` under the site's SECRET_KEY
    (tournaments/calendar_tokens.py), so the owner's page can show it again, and the feed finds its row by
    ``token_hash``, the token's sha256. A new link is a new nonce: the old address stops at once.
    """

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="calendar_feed")
    nonce = models.CharField(max_length=43)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"calendar feed of {self.player}"
