"""Signing in with the username in any case, as signing up treats it (Alice is alice).

auth_user is unique in lower(username) (migration 0008), so that racing sign-ups cannot make two accounts
that differ only in case, and at most one account answers to a name in any case; except pairs made before
that, which the migration left out of the index: for those the exact spelling decides, and a name that
matches several in case only signs in none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class UsernameAnyCaseBackend(ModelBackend):
    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        model = get_user_model()
        if username is None:
            username = kwargs.get(model.USERNAME_FIELD)
        if username is None or password is None:
            return None
        users = model._default_manager
        user = users.filter(username=username).first()
        if user is None:
            same_but_case = list(users.filter(username__iexact=username)[:2])
            user = same_but_case[0] if len(same_but_case) == 1 else None
        if user is None:
            # As ModelBackend does: hash anyway, so an unknown name takes as long as a wrong password.
            model().set_password(password)
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None

    async def aauthenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        # ModelBackend's own looks the name up exactly: the same rule, run in a thread.
        return await sync_to_async(self.authenticate)(request, username, password, **kwargs)
