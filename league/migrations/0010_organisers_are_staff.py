"""Organisers from before staff status followed the role (league/organiser_staff.py) are given it now, marked
as given by the role, so that it is taken back with their last organiser role as anyone's is."""

from typing import Any

from django.db import migrations

ROLE_STAFF_GROUP = "Staff through the organiser role"  # league.organiser_staff.ROLE_STAFF_GROUP, as of now


def organisers_become_staff(apps: Any, schema_editor: Any) -> None:
    user_model = apps.get_model("auth", "User")
    group_model = apps.get_model("auth", "Group")
    waiting = user_model.objects.filter(
        player__memberships__role="organiser", is_staff=False, is_superuser=False
    ).distinct()
    if not waiting.exists():
        return
    marker, _ = group_model.objects.get_or_create(name=ROLE_STAFF_GROUP)
    for user in waiting:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.groups.add(marker)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0009_personal_invitations"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    # Going back leaves staff as it is: the role's own rule takes it back when the role goes.
    operations = [migrations.RunPython(organisers_become_staff, migrations.RunPython.noop)]
