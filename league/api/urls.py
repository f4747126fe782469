"""Routes of the people-and-programs API, mounted under /api/ by config/urls.py."""

from __future__ import annotations

from rest_framework.routers import SimpleRouter

from league.api.bots import BotVersionViewSet, BotViewSet
from league.api.clubs import ClubViewSet, MembershipViewSet
from league.api.joining import ClubInvitationViewSet, InvitationViewSet, JoinRequestViewSet
from league.api.notifications import NotificationViewSet
from league.api.personal_invitations import ClubPersonalInvitationViewSet, MyInvitationViewSet
from league.api.players import PlayerViewSet
from league.api.webhooks import ClubWebhookViewSet

# Path converters rather than regexes, so every id in the schema is typed as an integer.
router = SimpleRouter(use_regex_path=False)
router.register("players", PlayerViewSet, basename="player")
# The caller's personal invitations, beside players/me/ (PlayerViewSet's own action).
router.register("players/me/invitations", MyInvitationViewSet, basename="my-invitation")
router.register("bots", BotViewSet, basename="bot")
router.register("bots/<int:bot_pk>/versions", BotVersionViewSet, basename="bot-version")
router.register("clubs", ClubViewSet, basename="club")
router.register("clubs/<int:club_pk>/members", MembershipViewSet, basename="club-member")
router.register("clubs/<int:club_pk>/invitations", ClubInvitationViewSet, basename="club-invitation")
router.register("clubs/<int:club_pk>/join-requests", JoinRequestViewSet, basename="club-join-request")
router.register(
    "clubs/<int:club_pk>/personal-invitations", ClubPersonalInvitationViewSet, basename="club-personal-invitation"
)
router.register("clubs/<int:club_pk>/webhooks", ClubWebhookViewSet, basename="club-webhook")
router.register("invitations", InvitationViewSet, basename="invitation")
router.register("notifications", NotificationViewSet, basename="notification")

urlpatterns = router.urls
