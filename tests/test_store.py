"""Progress is never lost: round trips, crashes, two writers, bad files."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from exercises.learner import review
from exercises.learner.progress import Progress
from exercises.learner.store import FILE_NAME, MIGRATIONS, SCHEMA_VERSION, Attempt, ProgressStore


def attempt(
    exercise="mlm-abcde", seed=0, correct=False, at=None, hints=0, graded=True, score=None, diagnoses=()
):
    return Attempt(
        exercise=exercise,
        objective="mlm",
        seed=seed,
        answer={"input": "A [MASK] C D X", "labels": "１：Ｂ"},
        score=(1.0 if correct else 0.5) if score is None else score,
        valid=True,
        graded=graded,
        correct=correct,
        diagnoses=list(diagnoses),
        hints_used=hints,
        seconds=3.25,
        at=time.time() if at is None else at,
    )


def test_round_trip_keeps_every_field(tmp_path):
    store = ProgressStore(tmp_path)
    saved = attempt(diagnoses=["loss-omits-random", "random-shown-as-mask"])
    assert store.record(saved)
    store.close()
    again = ProgressStore(tmp_path).attempts()
    assert again == [saved]


def test_settings_persist(tmp_path):
    store = ProgressStore(tmp_path)
    progress = Progress(store)
    progress.set("lang", "zh")
    progress.set("lang", "en")
    progress.last_objective = "span"
    store.close()
    reopened = Progress(ProgressStore(tmp_path))
    assert reopened.setting("lang") == "en" and reopened.last_objective == "span"


def test_migrations_take_every_earlier_schema_to_the_current_one(tmp_path):
    for start in range(SCHEMA_VERSION):
        folder = tmp_path / f"from-{start}"
        folder.mkdir()
        db = sqlite3.connect(folder / FILE_NAME)
        for version in range(1, start + 1):
            for statement in MIGRATIONS[version]:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {start}")
        db.commit()
        db.close()
        store = ProgressStore(folder)
        assert store.notices == [] and store.saving
        assert store.record(attempt())
        version = sqlite3.connect(folder / FILE_NAME).execute("PRAGMA user_version").fetchone()[0]
        assert version == SCHEMA_VERSION


def test_a_corrupt_file_is_reported_kept_and_replaced(tmp_path):
    (tmp_path / FILE_NAME).write_bytes(b"this is not sqlite" * 100)
    store = ProgressStore(tmp_path)
    assert len(store.notices) == 1 and "not a readable progress file" in store.notices[0]
    kept = list(tmp_path.glob(f"{FILE_NAME}.*.bad"))
    assert len(kept) == 1 and kept[0].read_bytes() == b"this is not sqlite" * 100
    assert store.record(attempt()) and len(store.attempts()) == 1


def test_a_newer_schema_is_moved_aside_not_overwritten(tmp_path):
    store = ProgressStore(tmp_path)
    store.record(attempt())
    store.close()
    db = sqlite3.connect(tmp_path / FILE_NAME)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    fresh = ProgressStore(tmp_path)
    assert "newer objectives-tutor" in fresh.notices[0]
    assert fresh.attempts() == []
    (kept,) = tmp_path.glob(f"{FILE_NAME}.*.bad")
    assert sqlite3.connect(kept).execute("SELECT count(*) FROM attempts").fetchone()[0] == 1


def test_an_unwritable_place_means_working_without_saving(tmp_path):
    store = ProgressStore(Path("/proc/objectives-tutor-cannot-write-here"))
    assert not store.saving and "working without saving" in store.notices[0]
    progress = Progress(store)
    assert progress.record(attempt(correct=True)) is False
    assert progress.solved() == {"mlm-abcde"}  # the session still counts it


def test_a_full_disk_is_reported_once_and_the_attempt_is_kept_in_memory(tmp_path):
    store = ProgressStore(tmp_path)
    progress = Progress(store)

    class FullDisk:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def execute(self, *args, **kwargs):
            raise sqlite3.OperationalError("database or disk is full")

    store._db = FullDisk()
    assert progress.record(attempt()) is False
    assert not store.saving and "disk is full" in store.notices[-1]
    assert len(progress.attempts) == 1


WRITER = """
import sys, time
from pathlib import Path
from exercises.learner.store import Attempt, ProgressStore
store = ProgressStore(Path(sys.argv[1]))
for i in range(int(sys.argv[2])):
    ok = store.record(Attempt("clm-shift", "clm", i, {"inputs": "x"}, 1.0, True, True, True))
    if not ok:
        raise SystemExit("not saved: " + "; ".join(store.notices))
    print(i, flush=True)
"""


def test_two_writers_at_once_lose_nothing(tmp_path):
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path), "150"], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [writer.communicate(timeout=120)[0] for writer in writers]
    assert all(writer.returncode == 0 for writer in writers)
    assert [len(output.split()) for output in outputs] == [150, 150]
    assert len(ProgressStore(tmp_path).attempts()) == 300


def test_a_killed_process_loses_at_most_its_current_attempt(tmp_path):
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path), "100000"], stdout=subprocess.PIPE, text=True
    )
    reported = []
    for line in writer.stdout:
        reported.append(int(line))
        if len(reported) >= 40:
            break
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    reported += [int(line) for line in writer.stdout.read().split()]
    store = ProgressStore(tmp_path)
    assert store.notices == []
    seeds = {a.seed for a in store.attempts()}
    assert set(reported) <= seeds  # every attempt reported as saved is there
    assert len(seeds) <= len(reported) + 1


def test_review_schedule_1_3_7_days_and_sooner_after_another_miss():
    day = review.DAY
    start = 1_000_000.0
    history = [attempt(seed=0, correct=False, at=start, diagnoses=["loss-omits-random"])]
    (item,) = review.review_queue(history, now=start)
    assert item.due == start + 1 * day and item.streak == 0 and item.next_seed == 1
    assert review.due_now(history, now=start + 0.5 * day) == []
    assert [i.exercise for i in review.due_now(history, now=start + 1.01 * day)] == ["mlm-abcde"]
    history.append(attempt(seed=1, correct=True, at=start + 1.1 * day))
    assert review.review_queue(history, now=start)[0].due == start + 1.1 * day + 3 * day
    history.append(attempt(seed=2, correct=True, at=start + 5 * day))
    assert review.review_queue(history, now=start)[0].due == start + 5 * day + 7 * day
    history.append(attempt(seed=3, correct=False, at=start + 13 * day))
    assert review.review_queue(history, now=start)[0].due == start + 14 * day  # a new miss: back to 1 day
    for seed in (4, 5, 6):
        history.append(attempt(seed=seed, correct=True, at=start + (14 + seed) * day))
    assert review.review_queue(history, now=start) == []  # three right in a row: graduated


def test_mastery_needs_three_distinct_variants_without_hints():
    history = [attempt(seed=0, correct=True), attempt(seed=0, correct=True), attempt(seed=1, correct=True)]
    assert review.mastered(history) == set()
    history.append(attempt(seed=2, correct=True, hints=1))
    assert review.mastered(history) == set()
    history.append(attempt(seed=5, correct=True))
    assert review.mastered(history) == {"mlm-abcde"}
    reflection = attempt(exercise="reflect-mlm-fill", graded=False, score=1.0)
    assert "reflect-mlm-fill" in review.mastered([reflection])


def test_reset_keeps_a_backup(tmp_path):
    store = ProgressStore(tmp_path)
    store.record(attempt())
    backup = store.reset()
    assert store.attempts() == []
    assert sqlite3.connect(backup).execute("SELECT count(*) FROM attempts").fetchone()[0] == 1


def test_check_record_stores_the_attempt_as_the_app_does(tmp_path, capsys):
    from tui.cli import main

    home = Path(os.environ["OBJECTIVES_TUTOR_HOME"])
    assert (
        main(["check", "mlm-abcde", "--seed", "2", "--answer", "loss_positions=1", "--record", "--json"]) == 0
    )
    graded = json.loads(capsys.readouterr().out)
    assert graded["recorded"] is True
    assert main(["progress", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    (stored,) = payload["attempts"]
    assert stored["exercise"] == "mlm-abcde" and stored["seed"] == 2
    assert stored["diagnoses"] == graded["diagnoses"] and stored["answer"] == {"loss_positions": "1"}
    assert payload["objectives"]["mlm"]["attempts"] == 1
    assert (home / FILE_NAME).exists()


def test_progress_reset_asks_first(capsys, monkeypatch):
    from tui.cli import main

    main(["check", "clm-shift", "--answer", "inputs=a b", "--answer", "labels=b c", "--record"])
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    main(["progress", "--reset"])
    assert "Nothing erased" in capsys.readouterr().out
    main(["progress", "--reset", "--yes"])
    assert "the backup is" in capsys.readouterr().out
    main(["progress", "--json"])
    assert json.loads(capsys.readouterr().out)["attempts"] == []


def test_progress_csv_has_a_row_per_attempt(capsys):
    from tui.cli import main

    for seed in (0, 1):
        main(["check", "visibility", "--seed", str(seed), "--answer", "visible=0", "--record"])
    capsys.readouterr()
    main(["progress", "--csv"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("at,exercise") and len(lines) == 3


@pytest.mark.parametrize("flags", [["--json", "--csv"], ["--csv", "--reset"]])
def test_progress_refuses_two_outputs(flags, capsys):
    from tui.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["progress", *flags])
    assert exit_info.value.code == 2


def test_reset_prompt_treats_end_of_input_as_no(capsys, monkeypatch):
    from tui.cli import main

    main(["check", "clm-shift", "--answer", "inputs=a b", "--answer", "labels=b c", "--record"])
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)

    def end_of_input(prompt):
        raise EOFError

    monkeypatch.setattr("builtins.input", end_of_input)
    assert main(["progress", "--reset"]) == 0
    assert "Nothing erased" in capsys.readouterr().out


def test_the_saved_language_is_used_when_no_lang_is_given(monkeypatch):
    """`objectives-tutor` with no --lang opens the app in the language saved last time,
    even when the locale says otherwise."""
    from tui import cli
    from tui.app import TutorApp

    Progress(ProgressStore()).set("lang", "zh")
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    opened = []
    monkeypatch.setattr(TutorApp, "run", lambda self, **options: opened.append(self.lang))
    exits = []  # run_app leaves with os._exit once the app is done: keep pytest alive
    monkeypatch.setattr("tui.app.os._exit", exits.append)
    assert cli.main([]) == 0
    assert opened == ["zh"]
    assert cli.main(["--lang", "en"]) == 0  # an explicit --lang still wins
    assert opened == ["zh", "en"]
    assert exits == [0, 0]


def test_per_objective_counts_follow_the_attempts(tmp_path):
    """The counts the home screen and `progress` show, against a hand count of these attempts."""
    from exercises.curriculum import OBJECTIVES

    progress = Progress(ProgressStore(tmp_path))
    two_days_ago = time.time() - 2 * 86_400
    progress.record(attempt("mlm-abcde", correct=False, at=two_days_ago))  # missed, due again now
    progress.record(attempt("mlm-eligible", correct=True))
    progress.record(attempt("mlm-eligible", correct=True, seed=1))
    progress.record(attempt("visibility", correct=False))  # missed just now: due tomorrow
    counts = progress.per_objective()
    assert list(counts) == [objective.id for objective in OBJECTIVES]
    mlm = next(objective for objective in OBJECTIVES if objective.id == "mlm")
    assert (counts["mlm"].exercises, counts["mlm"].attempts, counts["mlm"].solved) == (
        len(mlm.exercises),
        3,
        1,
    )
    assert counts["mlm"].due == 1 and counts["mlm"].mastered == 0
    assert (counts["visibility"].attempts, counts["visibility"].solved, counts["visibility"].due) == (1, 0, 0)
    assert all(counts[o.id].attempts == 0 for o in OBJECTIVES if o.id not in ("mlm", "visibility"))


def test_progress_json_reports_the_same_counts(capsys):
    from tui.cli import main

    main(["check", "visibility", "--answer", "visible=0", "--record"])
    capsys.readouterr()
    main(["progress", "--json"])
    payload = json.loads(capsys.readouterr().out)
    expected = {key: vars(value) for key, value in Progress(ProgressStore()).per_objective().items()}
    assert payload["objectives"] == expected and payload["objectives"]["visibility"]["attempts"] == 1


def test_progress_reset_clears_the_code_lab_and_the_training_lab_too(capsys, tmp_path):
    """Issue 10: `progress --reset` erases everything the learner did: graded attempts,
    code-lab runs (a task done counts no more), and the training lab's last run (its
    exercises fall back to the reference table); settings stay; all kept in a backup."""
    from exercises.lab.checks import LabResult
    from exercises.lab.record import LabRecord
    from exercises.training.runs import lab_dir, last_table
    from tui.cli import main

    home = Path(os.environ["OBJECTIVES_TUTOR_HOME"])
    main(["check", "clm-shift", "--answer", "inputs=a b", "--answer", "labels=b c", "--record"])
    store = ProgressStore(home)
    store.set_setting("lang", "zh")
    store.close()
    record = LabRecord(home)
    assert record.record(LabResult("causal_mask", "pass"))
    assert record.done() == {"causal_mask"}
    runs = lab_dir(home)
    runs.mkdir(parents=True)
    (runs / "last-run.pt").write_bytes(b"weights")
    (runs / "last-run.json").write_text('{"objectives": {}, "settings": {}}', encoding="utf-8")
    assert last_table(home) is not None
    capsys.readouterr()

    assert main(["progress", "--reset", "--yes"]) == 0
    said = capsys.readouterr().out

    assert LabRecord(home).done() == set() and LabRecord(home).runs() == []
    assert not (runs / "last-run.pt").exists() and last_table(home) is None
    reopened = ProgressStore(home)
    assert reopened.attempts() == [] and reopened.settings()["lang"] == "zh"
    (backup,) = home.glob("progress.db.*.backup")
    saved = sqlite3.connect(backup)
    assert saved.execute("SELECT count(*) FROM lab_runs").fetchone()[0] == 1
    assert saved.execute("SELECT count(*) FROM attempts").fetchone()[0] == 1
    (kept,) = home.glob("training-lab.*.backup")
    assert (kept / "last-run.pt").read_bytes() == b"weights"
    assert str(kept) in said and str(backup) in said
