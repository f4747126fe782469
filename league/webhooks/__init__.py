"""Club webhooks: a club's chat (Discord, Slack) or its own program hears of the club's events (issue 24).

An organiser registers an address; each event of the club that its webhooks want becomes one delivery row per
webhook, written in the event's own transaction (``club_event``), and is posted after commit by a worker on the
webhooks' own queue, signed with the webhook's secret, and tried again with growing waits until it is answered
with a 2xx or given up. docs/webhooks.md describes the body, the signature and the schedule.
"""
