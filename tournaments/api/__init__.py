"""The REST API for competitions and what is played in them."""
