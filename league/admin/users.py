"""Django's user pages (superusers only), with the names rule: a username is not another player's name.

Django's own forms check that a new username is free in any case; these also refuse one that folds like
another player's username or display name (league/names.py), and a rename moves the player's claim in the
rename's transaction, so the claims always hold the names people sign in with.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm
from django.contrib.auth.forms import UserChangeForm as DjangoUserChangeForm
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest

from league.admin.service_errors import RefusalsAsMessages
from league.models import Player
from league.names import names_check
from league.services import player_username_changed

User = get_user_model()
TAKEN = "A user with that username already exists."


def _not_anothers_name(username: str, user: Any) -> None:
    player = Player.objects.filter(user_id=user.pk).first() if user.pk is not None else None
    try:
        names_check(username=username, player=player)
    except ValidationError as error:
        raise ValidationError(error.message_dict["username"]) from None


class UserCreationForm(AdminUserCreationForm):  # type: ignore[type-arg]
    def clean_username(self) -> str:
        username: str = super().clean_username()  # free in any case (Django's own check)
        _not_anothers_name(username, self.instance)
        return username


class UserChangeForm(DjangoUserChangeForm):  # type: ignore[type-arg]
    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        if User._default_manager.filter(username__iexact=username).exclude(pk=self.instance.pk).exists():
            raise ValidationError(TAKEN)
        _not_anothers_name(username, self.instance)
        return username


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(RefusalsAsMessages, DjangoUserAdmin):  # type: ignore[type-arg]
    form = UserChangeForm
    add_form = UserCreationForm

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        try:
            # A savepoint: a username taken in some case since the form's check (auth_user's unique
            # lower(username)) leaves the admin's transaction able to answer.
            with transaction.atomic():
                super().save_model(request, obj, form, change)
        except IntegrityError:
            raise ValidationError({"username": TAKEN}) from None
        if change and "username" in form.changed_data:
            player = Player.objects.filter(user_id=obj.pk).first()
            if player is not None:
                player_username_changed(player=player)
