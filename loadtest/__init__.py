"""Load benchmark of the scaled-out form: `python -m loadtest --help`.

Starts PostgreSQL-backed gunicorn, Celery worker and beat processes and a Redis of its own on
this machine (loopback only, a scratch database), then simulated people play through the HTTP
API. It runs on the integration tests' harness (tests/integration/harness).
"""
