"""Computer players: they decide from a seat's observation and act through the service layer."""
