"""Fixtures shared by all test packages; pytest-django already supplies client, db and settings."""
