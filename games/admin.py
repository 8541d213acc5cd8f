"""Admin registrations of the games app."""
