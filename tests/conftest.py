"""Fixtures shared by all test packages; pytest-django already supplies client, db and settings."""

import functools
import os

import pytest
from hypothesis import settings as hypothesis_settings

# The browser fixture of the admin's and the web client's browser tests.
pytest_plugins = ["tests.browser"]

# CI runs the same examples every time (a red run must be reproducible); a developer's run
# explores new ones, and failures are kept in .hypothesis/ for the next run.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
hypothesis_settings.register_profile("dev", deadline=None)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """SQLite's test database (the settings' name, with an xdist worker's suffix) goes in
    pytest's temporary directory rather than the repository's root: the -wal and -shm files a
    thread's connection leaves when the database is removed stay there, and pytest keeps only
    its last few runs' directories."""
    from django.conf import settings

    folder = tmp_path_factory.mktemp("databases")
    for database in settings.DATABASES.values():
        if database["ENGINE"] == "django.db.backends.sqlite3":
            test = database.setdefault("TEST", {})
            test["NAME"] = str(folder / os.path.basename(test.get("NAME") or "test-db.sqlite3"))


@pytest.fixture(autouse=True)
def _background_work_ends_with_the_test(request):
    """What a test set going in this process's background (the periodic jobs a request
    started, the computer players' turns, webhook deliveries and their retries) ends with it,
    before its database access does: what waits is dropped and the work under way is waited
    for (`runtime.work.stop_in_process`). Else a lane's thread would run on against a database
    it may no longer use, or the next test's."""
    if "_django_db_helper" in request.fixturenames:
        # The database access of a test that asks for `db`, `transactional_db`... (a django_db
        # mark's comes first anyway): set up before this fixture, it ends after it.
        request.getfixturevalue("_django_db_helper")
    yield
    from runtime import work

    work.stop_in_process()


@pytest.fixture(autouse=True)
def _follow_ups_as_they_commit(monkeypatch):
    """What follows a match's change runs once the change's transaction commits
    (games/follow_ups.py). A test's own transaction never commits: here what the change told
    (webhooks, ratings, records, deal sets, metrics) follows when the outermost transaction
    inside it ends, as after a commit. What the unit of work sends itself (announcements, the
    computer players' turns, analyses: `Committed`) still waits for a commit, as everything
    else does: tests that want it run or capture it themselves."""
    from django.db import transaction

    from games import follow_ups

    exit_atomic = transaction.Atomic.__exit__

    def exiting(self, exc_type, exc_value, traceback):
        result = exit_atomic(self, exc_type, exc_value, traceback)
        connection = transaction.get_connection(self.using)
        if (exc_type is None and connection.atomic_blocks
                and all(block._from_testcase for block in connection.atomic_blocks)):
            waiting, kept = [], []
            for entry in connection.run_on_commit:
                run = entry[1]
                if getattr(run, "func", None) is not follow_ups._run:
                    kept.append(entry)
                    continue
                events, rows_of = run.args
                told = [e for e in events if not isinstance(e, follow_ups.Committed)]
                waiting.append(functools.partial(follow_ups._run, told, rows_of))
                sent = [e for e in events if isinstance(e, follow_ups.Committed)]
                if sent:
                    kept.append((entry[0], functools.partial(follow_ups._run, sent, {}),
                                 entry[2]))
            connection.run_on_commit = kept
            for run in waiting:
                run()
        return result

    monkeypatch.setattr(transaction.Atomic, "__exit__", exiting)


@pytest.fixture(autouse=True)
def _no_clock_timer(settings):
    """The embedded default's periodic jobs and webhook deliveries would outlive each test's
    database: tests run the jobs themselves (`sweeper.run_clocks`...), and the tests that need
    them switch them on, and they stop as the test ends (`_background_work_ends_with_the_test`)."""
    settings.IN_PROCESS_JOBS = False


@pytest.fixture(autouse=True)
def _server_time_afresh():
    """Every test starts with no account's server time used (the next test's accounts have the
    same ids)."""
    from games import server_time

    server_time.forget()


@pytest.fixture(autouse=True)
def _no_deal_analysis(settings):
    """Ended deals are not analysed (seconds of search each, on a lane that would outlive the
    test's database): the tests of the analysis switch it on and run its task themselves."""
    settings.ANALYSE_DEALS = False


@pytest.fixture(autouse=True)
def _streams_end_at_the_end(settings):
    """A finished match's stream closes with its `end`, as a match without a rematch's would
    after STREAM_AFTER_END_SECONDS: the tests of what comes after the end set it."""
    settings.STREAM_AFTER_END_SECONDS = 0


@pytest.fixture
def asgi_server(transactional_db):
    """The service as `scripts/serve` runs it (uvicorn, batak_api/asgi.py) in a thread of the
    test process, on the test database; yields its base URL."""
    import socket
    import threading
    import time

    import uvicorn

    from batak_api.asgi import application
    from batak_api.stream_server import MAX_HEAD_BYTES

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(application, host="127.0.0.1", port=port, lifespan="off",
                            log_level="warning", timeout_graceful_shutdown=1,
                            http="h11", h11_max_incomplete_event_size=MAX_HEAD_BYTES)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
