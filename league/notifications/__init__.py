"""Notifications: what reaches a person who is not looking at the site (issue 24).

One model (``Notification``) and one service (``notify``) that every part of the site calls inside the
transaction of the event it tells of; the person's settings say which channels carry each kind: the inbox on
the site (``/notifications/`` and ``GET /api/notifications/``) and e-mail, gathered into one mail per quiet
while (league/notifications/mail.py). docs/notifications.md describes each kind and channel.
"""
