"""People and programs: players, clubs, bots and their immutable versions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.choices import CallableChoiceIterator

from engine.games import game_names, get_game


def game_choices() -> list[tuple[str, str]]:
    """Every game the engine knows, labelled as people write it.

    A callable, so that fields and forms read it when they are used: a game registered
    after start-up (docs/engine-interface.md, "Adding a game") is offered too.
    """
    return [(name, get_game(name).PROFILE.label) for name in game_names()]


#: The same, for what wants an iterable (DRF's and django-filter's choice fields); each use reads it afresh.
GAME_CHOICES = CallableChoiceIterator(game_choices)


class Player(models.Model):
    """A person: a Django user who plays refereed games and owns bots."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player")
    display_name = models.CharField(max_length=80)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["display_name", "id"]

    def __str__(self) -> str:
        return self.display_name


class NameClaim(models.Model):
    """A name a player is known by, folded as people read it (league/names.py): no two players hold one.

    Each player holds their username's claim and, if it folds to something else, their display name's.
    The unique key is what stops two racing sign-ups or renames from both taking a name.
    """

    class Kind(models.TextChoices):
        USERNAME = "username"
        DISPLAY_NAME = "display_name"

    #: sha256 of the folded name (league.names.name_key): short and of one length, however long the fold.
    key = models.CharField(max_length=64, unique=True)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="name_claims")
    kind = models.CharField(max_length=12, choices=Kind.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "kind"], name="one_name_claim_per_kind")]

    def __str__(self) -> str:
        return f"{self.player}'s {self.kind}"


class Club(models.Model):
    class CompetitionCreators(models.TextChoices):
        ORGANISERS = "organisers"
        MEMBERS = "members"

    class Joining(models.TextChoices):
        #: Anyone signed in joins at once.
        OPEN = "open"
        #: Anyone may ask; an organiser accepts or declines.
        REQUEST = "request"
        #: Only with an invitation code an organiser made.
        INVITATION = "invitation"

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=60, unique=True)
    members = models.ManyToManyField(Player, through="Membership", related_name="clubs")
    #: Who may create the club's competitions: its organisers only (the default), or any member.
    competition_creators = models.CharField(
        max_length=12, choices=CompetitionCreators.choices, default=CompetitionCreators.ORGANISERS
    )
    #: How people become members: at once, by a request an organiser decides, or by invitation only.
    joining = models.CharField(max_length=10, choices=Joining.choices, default=Joining.INVITATION)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(Lower("slug"), name="club_slug_unique_whatever_its_case")]

    def __str__(self) -> str:
        return self.name

    def lets_create_competitions(self, role: str | None) -> bool:
        """Whether a member of this role (None: not a member) may create the club's competitions."""
        if role is None:
            return False
        return role == Membership.Role.ORGANISER or self.competition_creators == self.CompetitionCreators.MEMBERS


class Membership(models.Model):
    class Role(models.TextChoices):
        MEMBER = "member"
        #: Confirms transcripts and settles disputes in the club's refereed games.
        REFEREE = "referee"
        ORGANISER = "organiser"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=12, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club", "player"], name="membership_once_per_club")]

    def __str__(self) -> str:
        return f"{self.player} in {self.club} ({self.role})"


class Bot(models.Model):
    """A program a player enters into competitions, through its versions."""

    owner = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="bots")
    name = models.CharField(max_length=80)
    game = models.CharField(max_length=10, choices=game_choices)
    description = models.TextField(blank=True)
    retired_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="bot_name_unique_per_owner")]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


class BotVersion(models.Model):
    """One immutable version of a bot: what actually plays a match.

    A version never changes once created (services create, never update, its
    code fields), so a recorded game always names exactly what played it.
    """

    class Kind(models.TextChoices):
        BUILTIN = "builtin"
        UPLOAD = "upload"
        HTTP = "http"

    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        FAILED = "failed"

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    #: For ``builtin``: the engine strategy's name (``random``, ``counter``, ...).
    strategy = models.CharField(max_length=40, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    #: For ``upload``: the file as uploaded (a .py or a .zip), its name, entry module and checksum.
    source = models.BinaryField(blank=True, default=b"", editable=False)
    filename = models.CharField(max_length=200, blank=True)
    entry = models.CharField(max_length=200, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    #: For ``http``: the endpoint called once per decision.
    url = models.CharField(max_length=2000, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    status_detail = models.TextField(blank=True)
    #: The validation match's stderr (uploads) or transport errors (http): the owner's eyes only.
    log = models.TextField(blank=True)
    #: When the validation task was last sent; the reaper re-sends one a broker lost.
    queued_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Suspension (docs/bot-protocol.md, "When a bot breaks"): not code, so not bound by the version's immutability.
    #: When it was suspended for forfeiting most of its recent games; null while it may play.
    suspended_at = models.DateTimeField(null=True, blank=True)
    #: The forfeits that suspended it, by cause ({"crash": 7, "timeout": 1}); kept after reinstatement.
    suspension_causes = models.JSONField(default=dict, blank=True)
    #: When its owner last reinstated it: the rule counts only the games recorded since.
    reinstated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["bot_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="bot_version_number_unique"),
            models.CheckConstraint(
                condition=~models.Q(kind="builtin") | ~models.Q(strategy=""), name="builtin_version_names_strategy"
            ),
            models.CheckConstraint(
                condition=~models.Q(kind="upload") | (~models.Q(sha256="") & ~models.Q(entry="")),
                name="upload_version_has_code",
            ),
            models.CheckConstraint(condition=~models.Q(kind="http") | ~models.Q(url=""), name="http_version_has_url"),
        ]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"


class Invitation(models.Model):
    """A code an organiser hands out: whoever accepts it joins the club in its role, until it expires or is used up."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invitations")
    #: Unguessable (192 random bits, 32 characters): the code is the whole credential.
    code = models.CharField(max_length=32, unique=True)
    role = models.CharField(max_length=12, choices=Membership.Role.choices, default=Membership.Role.MEMBER)
    created_by = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="invitations_made")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    max_uses = models.PositiveIntegerField()
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(uses__lte=models.F("max_uses")), name="invitation_within_its_uses"
            )
        ]

    def __str__(self) -> str:
        return f"invitation to {self.club} ({self.uses}/{self.max_uses} used)"


class JoinRequest(models.Model):
    """A player asks to join a club that admits members by request; an organiser accepts or declines."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        WITHDRAWN = "withdrawn"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="join_requests")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="join_requests")
    note = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="join_requests_decided"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One open request per person and club: asking again returns it.
            models.UniqueConstraint(
                fields=["club", "player"], condition=models.Q(status="pending"), name="one_pending_join_request"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} asks to join {self.club} ({self.status})"


class PersonalInvitation(models.Model):
    """An organiser's offer of a place in the club, in a role, to one person, who accepts or declines it.

    Organisers never enrol people (issue 21, finding 9): a membership exists only once the person
    accepts, so no one is put in a club, or entered in its competitions, without saying yes.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        WITHDRAWN = "withdrawn"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="personal_invitations")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="personal_invitations")
    role = models.CharField(max_length=12, choices=Membership.Role.choices, default=Membership.Role.MEMBER)
    invited_by = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="personal_invitations_made"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One open offer per person and club: inviting again returns it, even when two organisers race.
            models.UniqueConstraint(
                fields=["club", "player"],
                condition=models.Q(status="pending"),
                name="one_pending_personal_invitation",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} invited to {self.club} as {self.role} ({self.status})"


# The notifications' models live with their service (league/notifications/); imported here so that the league
# app, which owns them, finds them.
from league.notifications.models import Notification, NotificationSetting  # noqa: E402, F401

# A club's webhooks and their deliveries (league/webhooks/), found the same way.
from league.webhooks.models import ClubWebhook, WebhookDelivery  # noqa: E402, F401
