"""Who is asking at a live table, by token, in one prepared statement (docs/performance.md, "Live tables").

DRF's TokenAuthentication reads the token and its user through the ORM, and the live views then read
the user's player through it again: two statements compiled afresh on every table read and every move,
which measured as about half of such a request's own CPU under ``make bench-live``. Here the token,
its user and their player come back in one statement, prepared once per connection on PostgreSQL
(tournaments/services/statements.py), with DRF's own refusals and wording.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _
from drf_spectacular.drainage import set_override
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from league.api.identity import remember_viewing_player
from league.models import Player
from tournaments.services.statements import instance_from_row, select_columns, sql_cursor

_USER_FIELDS = len(User._meta.concrete_fields)
_TOKEN_USER_PLAYER = (
    f"SELECT {select_columns('u', User)}, {select_columns('p', Player)} "
    f"FROM {Token._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id "
    f"LEFT JOIN {Player._meta.db_table} p ON p.user_id = u.id WHERE t.key = %s"
)


class PlayerTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>`` as DRF reads it, the caller's player remembered for viewing_player."""

    def __init__(self) -> None:
        self._player: Player | None = None

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        found = super().authenticate(request)
        if found is not None:
            remember_viewing_player(request, self._player)
        return found

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        with sql_cursor() as cursor:
            cursor.execute(_TOKEN_USER_PLAYER, [key])
            row = cursor.fetchone()
        if row is None:
            raise AuthenticationFailed(_("Invalid token."))
        user = instance_from_row(User, row[:_USER_FIELDS])
        if not user.is_active:
            raise AuthenticationFailed(_("User inactive or deleted."))
        player_row = row[_USER_FIELDS:]
        # Each knows its user, and the user not them: assigned the usual way, each one-to-one would also be
        # cached on the user, a cycle the garbage collector would have to free after every request.
        if player_row[0] is not None:
            self._player = instance_from_row(Player, player_row)
            Player.user.field.set_cached_value(self._player, user)
        token = Token(key=key, user_id=user.pk)
        Token.user.field.set_cached_value(token, user)
        return user, token


# The schema's "tokenAuth" is this scheme too (drf-spectacular's TokenScheme matches subclasses): the same
# header and refusals, read in one statement. Its security component is the one the other views list.
set_override(PlayerTokenAuthentication, "suppress_collision_warning", True)
