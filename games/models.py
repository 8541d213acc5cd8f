"""Database models of the games app; only the service layer writes them."""
