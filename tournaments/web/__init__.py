"""The web table: pages where people sign in, find their matches and play them in a browser.

The pages are thin shells: every figure on them comes from the live API
(``/api/players/me/matches/``, ``/api/matches/{id}/table/`` and its event
stream), so a seat's page can show nothing that seat's API view would not.
"""
