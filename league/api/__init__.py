"""The REST API for people and programs: players, bots and their versions, clubs."""
