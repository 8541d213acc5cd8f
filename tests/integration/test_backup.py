"""Backup and restore on PostgreSQL (`manage.py backup` / `restore`), taken while matches are
played: the copy restores into a new database where every match replays from its log to its
stored state (`check_matches`), each match as it was at one moment (a prefix of its log)."""

from __future__ import annotations

import random
import secrets
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.integration.conftest import database_url
from tests.integration.harness import client
from tests.integration.harness.stack import ROOT, Stack

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

PLAYERS = 4


def _manage(stack: Stack, database: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**stack.env, "DATABASE_URL": database}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def restored_database() -> Iterator[str]:
    source = database_url()
    name = f"restore_{secrets.token_hex(4)}"
    with psycopg.connect(source, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield source.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(source, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _logs(url: str, match_ids: list[str]) -> dict[str, list[tuple[int, int, str, str]]]:
    with psycopg.connect(url) as database:
        rows = database.execute(
            "SELECT match_id::text, version, seat, kind, payload::text FROM games_action"
            " WHERE match_id::text = ANY(%s) ORDER BY match_id, version", (match_ids,)
        ).fetchall()
    logs: dict[str, list[tuple[int, int, str, str]]] = {match_id: [] for match_id in match_ids}
    for match_id, *action in rows:
        logs[match_id].append(tuple(action))  # type: ignore[arg-type]
    return logs


def test_a_backup_taken_during_play_restores_to_consistent_matches(
    stack: Stack, web: str, restored_database: str, tmp_path: Path
) -> None:
    match_ids: list[str] = []
    started = threading.Barrier(PLAYERS + 1)
    errors: list[BaseException] = []

    def play(seed: int) -> None:
        try:
            api = client.guest(web, f"Backed up {seed}")
            # Long enough to be in play while the backup starts (a process of its own).
            match_ids.append(client.match_against_bots(api, levels=("easy",) * 3, deals=8))
            moves = client.moves_to_the_end({0: api}, match_ids[-1], random.Random(seed))
            next(moves)
            next(moves)
            started.wait(60)
            for _ in moves:
                pass
        except BaseException as error:
            errors.append(error)
            started.abort()

    threads = [threading.Thread(target=play, args=(seed,)) for seed in range(PLAYERS)]
    for thread in threads:
        thread.start()
    started.wait(120)
    copy = tmp_path / "batak.dump"
    backup = _manage(stack, database_url(), "backup", str(copy))
    for thread in threads:
        thread.join(300)
    assert not errors, errors
    assert backup.returncode == 0, backup.stderr

    restore = _manage(stack, restored_database, "restore", str(copy))
    assert restore.returncode == 0, restore.stderr + restore.stdout
    assert "problems: 0" in restore.stdout

    now, then = _logs(database_url(), match_ids), _logs(restored_database, match_ids)
    for match_id in match_ids:
        assert then[match_id] == now[match_id][: len(then[match_id])]
    # Taken during play: some match had moves still to come.
    assert any(len(then[match_id]) < len(now[match_id]) for match_id in match_ids)
