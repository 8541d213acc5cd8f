FROM python:3.11-slim AS builder
WORKDIR /src
COPY . .
# The project itself runs from /app in the runtime image (so BASE_DIR is the checkout);
# only its dependencies are installed as wheels.
RUN pip wheel --no-cache-dir --wheel-dir /wheels . && rm /wheels/batak_service-*.whl

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_DEBUG=false
RUN useradd --create-home --uid 10001 batak
COPY --from=builder /wheels /wheels
RUN pip install --no-cache-dir --no-index /wheels/*.whl && rm -rf /wheels
WORKDIR /app
COPY . .
USER batak
EXPOSE 8000
HEALTHCHECK CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=3)"]
CMD ["gunicorn", "batak_api.wsgi", "--bind", "0.0.0.0:8000"]
