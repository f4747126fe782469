"""Django's PostgreSQL backend, with a pool that gets over a PostgreSQL restart (DATABASE_POOL): see base.py."""
