"""What the integration tests and the load benchmark (loadtest/) run on: the scaled-out form's
processes (`stack`), a person at the table over HTTP (`client`) and the log audit (`audit`)."""
