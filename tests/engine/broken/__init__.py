"""Game modules that registration must refuse (tests/config/test_engine_games_setting.py)."""
