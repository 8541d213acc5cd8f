# syntax=docker/dockerfile:1
# The Batak service: gunicorn by default; the same image runs the Celery worker and beat (see
# compose.yaml). Every RUN step is a command of scripts/image-steps, which CI also runs outside
# Docker (`bash scripts/image-steps check`), since no Docker engine runs there.

# Dependencies are installed into a virtualenv in their own stage, so the runtime image carries
# no pip cache or build leftovers, and this layer is rebuilt only when pyproject.toml changes.
FROM python:3.11-slim AS deps
WORKDIR /src
COPY pyproject.toml ./
COPY scripts/image-steps scripts/
RUN bash scripts/image-steps deps /opt/venv

FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_DEBUG=false \
    PORT=8000 \
    NUMBA_CACHE_DIR=/var/cache/batak/numba \
    PROMETHEUS_MULTIPROC_DIR=/var/cache/batak/metrics
RUN useradd --system --no-create-home --uid 10001 batak
COPY --from=deps /opt/venv /opt/venv
# The project runs from its source folder, which is BASE_DIR (locale/, openapi/, templates).
WORKDIR /app
COPY . .
RUN bash scripts/image-steps static
# The computer players' search, compiled at build time; writable by the service, which compiles
# again only when it runs on a CPU other than the build's. Beside it, the metrics' files of each
# container's processes (batak_api/metrics.py).
RUN bash scripts/image-steps compile && mkdir -p "$PROMETHEUS_MULTIPROC_DIR" \
    && chown -R batak /var/cache/batak
USER batak
EXPOSE 8000
# Readiness of the web process (its database, migrated, and Redis answer; /healthz alone says
# it is alive); compose.yaml gives the worker and beat checks of their own.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["bash", "scripts/image-steps", "readiness"]
CMD ["gunicorn", "-c", "python:batak_api.gunicorn_conf"]
