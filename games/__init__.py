"""Batak matches: models, API and the services that change them; the rules live in games.engine."""
