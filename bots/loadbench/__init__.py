"""Load benchmark of the scaled-out form: `python -m bots.loadbench --help`.

Starts PostgreSQL-backed gunicorn, Celery worker and beat processes and a Redis of its own on
this machine (loopback only, a scratch database), then simulated people play through the HTTP
API. `stack` and `client` are also what the integration tests (tests/integration) run on.
"""
