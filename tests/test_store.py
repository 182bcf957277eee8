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
from exercises.learner.store import FILE_NAME, MIGRATIONS, PREDICTION, SCHEMA_VERSION, Attempt, ProgressStore
from tui.i18n import notice_text

UNWRITABLE = Path("/proc/objectives-tutor-cannot-write-here")


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
    kept = list(tmp_path.glob(f"{FILE_NAME}.*.bad"))
    assert len(kept) == 1 and kept[0].read_bytes() == b"this is not sqlite" * 100
    (notice,) = store.notices
    english, chinese = notice_text(notice, "en"), notice_text(notice, "zh")
    assert "not a readable progress file" in english and kept[0].name in english
    assert "不是可读的进度文件" in chinese and kept[0].name in chinese and "kept as" not in chinese
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
    assert fresh.attempts() == []
    (kept,) = tmp_path.glob(f"{FILE_NAME}.*.bad")
    (notice,) = fresh.notices
    schemas = f"{SCHEMA_VERSION + 1} > {SCHEMA_VERSION}"
    assert f"newer objectives-tutor (schema {schemas})" in notice_text(notice, "en")
    assert f"更新版本的 objectives-tutor 写入（格式 {schemas}）" in notice_text(notice, "zh")
    assert kept.name in notice_text(notice, "en") and kept.name in notice_text(notice, "zh")
    assert sqlite3.connect(kept).execute("SELECT count(*) FROM attempts").fetchone()[0] == 1


def test_an_unwritable_place_means_working_without_saving(tmp_path):
    store = ProgressStore(UNWRITABLE)
    assert not store.saving and "working without saving" in notice_text(store.notices[0], "en")
    assert "本次不保存" in notice_text(store.notices[0], "zh") and str(UNWRITABLE) in notice_text(
        store.notices[0], "zh"
    )
    progress = Progress(store)
    assert progress.record(attempt(correct=True)) is False
    assert progress.solved() == {"mlm-abcde"}  # the session still counts it


class FullDisk:
    """A connection on a full disk: every statement fails as SQLite says it then."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, *args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")


def test_a_full_disk_is_reported_once_and_the_attempt_is_kept_in_memory(tmp_path):
    store = ProgressStore(tmp_path)
    progress = Progress(store)
    store._db = FullDisk()
    assert progress.record(attempt()) is False
    assert not store.saving and len(store.notices) == 1
    assert "disk is full" in notice_text(store.notices[0], "en") and "无法在" in notice_text(
        store.notices[0], "zh"
    )
    assert len(progress.attempts) == 1


WRITER = """
import sys, time
from pathlib import Path
from exercises.learner.store import Attempt, ProgressStore
store = ProgressStore(Path(sys.argv[1]))
for i in range(int(sys.argv[2])):
    ok = store.record(Attempt("clm-shift", "clm", i, {"inputs": "x"}, 1.0, True, True, True))
    if not ok:
        raise SystemExit("not saved: " + "; ".join(map(str, store.notices)))
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


def test_a_notice_reaches_the_command_line_in_the_learners_language(capsys, monkeypatch):
    """`check --record` and `progress` where nothing can be saved: one line on stderr, in zh
    with --lang zh and in en with --lang en, never the other language."""
    from tui.cli import main

    monkeypatch.setenv("OBJECTIVES_TUTOR_HOME", str(UNWRITABLE))
    check = ["check", "visibility", "--answer", "visible=0", "--record"]
    for lang, said, not_said in (("zh", "无法在", "cannot be saved"), ("en", "cannot be saved", "无法")):
        for command in (check, ["progress"]):
            main(["--lang", lang, *command])
            lines = capsys.readouterr().err.strip().splitlines()
            assert len(lines) == 1 and said in lines[0] and not_said not in lines[0], (lang, command, lines)
            assert str(UNWRITABLE) in lines[0]


def prediction(objective, correct, exercise="predict-x"):
    return Attempt(
        exercise, objective, 0, {"prediction": "1"}, float(correct), True, True, correct, kind=PREDICTION
    )


def test_progress_csv_says_the_kind_of_every_row(capsys):
    """Issue 11 follow-up: predictions and exercise attempts share the file; the CSV's
    `kind` column tells them apart (a row per attempt, in the order they were made)."""
    from tui.cli import main

    main(["check", "visibility", "--answer", "visible=0", "--record"])
    progress = Progress(ProgressStore())
    progress.record(prediction("clm", True))
    capsys.readouterr()
    main(["progress", "--csv"])
    import csv as csv_module

    rows = list(csv_module.DictReader(capsys.readouterr().out.splitlines()))
    assert [(row["exercise"], row["kind"]) for row in rows] == [
        ("visibility", "exercise"),
        ("predict-x", "prediction"),
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_progress_table_counts_predictions_apart_from_attempts(capsys, lang):
    """Two predictions on the CLM lesson (one right) and one on MLM (wrong), one exercise
    attempt on visibility: the table's last column shows right/made per lesson, and the
    attempts column counts the exercise attempt only."""
    from exercises.curriculum import OBJECTIVES
    from exercises.text import pick
    from tui.cli import main
    from tui.i18n import t

    main(["check", "visibility", "--answer", "visible=0", "--record"])
    progress = Progress(ProgressStore())
    for objective, correct in (("clm", True), ("clm", False), ("mlm", False)):
        progress.record(prediction(objective, correct))
    capsys.readouterr()
    main(["--lang", lang, "progress"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == t("progress-predictions", lang).split()[-1]
    expected = {"clm": ("0", "1/2"), "mlm": ("0", "0/1"), "visibility": ("1", "0/0")}
    for objective in OBJECTIVES:
        (line,) = [line for line in lines if line.startswith(pick(objective.title, lang) + " ")]
        cells = line.split()
        attempts, predicted = expected.get(objective.id, ("0", "0/0"))
        assert (cells[-5], cells[-1]) == (attempts, predicted), (objective.id, line)


@pytest.mark.parametrize(
    ("lang", "said", "not_said"),
    [("zh", "不是可读的进度文件", "readable"), ("en", "is not a readable progress file", "进度")],
)
async def test_the_app_reports_a_store_notice_in_its_language(tmp_path, lang, said, not_said):
    """A corrupt progress file met at start: the app's toast says so in the app's language."""
    from tui.app import TutorApp

    (tmp_path / FILE_NAME).write_bytes(b"\x00garbage" * 64)
    app = TutorApp(lang=lang, load_engine=False, still=True, store=ProgressStore(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        (toast,) = [notification.message for notification in app._notifications]
    (kept,) = tmp_path.glob(f"{FILE_NAME}.*.bad")
    assert said in toast and not_said not in toast and kept.name in toast


def test_a_failed_read_is_a_notice_in_both_languages(tmp_path):
    """The fourth notice: progress that cannot be read leaves the learner with an empty
    history and a line that says why (the sqlite error kept as it is)."""
    store = ProgressStore(tmp_path)
    store.record(attempt())

    class Unreadable:
        def execute(self, *args, **kwargs):
            raise sqlite3.DatabaseError("database disk image is malformed")

    store._db = Unreadable()
    assert store.attempts() == []
    (notice,) = store.notices
    assert notice_text(notice, "en") == "could not read progress (database disk image is malformed)"
    assert notice_text(notice, "zh") == "无法读取进度（database disk image is malformed）"


@pytest.mark.parametrize(("lang", "said"), [("zh", "本次不保存"), ("en", "working without saving")])
async def test_the_app_says_once_in_its_language_when_an_attempt_cannot_be_saved(tmp_path, lang, said):
    """The disk fills up mid-session: the next graded attempt brings one error toast, in
    the app's language; the attempt after it brings none (the learner was told)."""
    from exercises.catalogue import get
    from tui.app import TutorApp
    from tui.widgets.exercise_panel import ExercisePanel

    exercise = get("visibility")
    variant = exercise.generate(0)
    answer = {"visible": "0"}
    result = exercise.grade(variant, answer)
    store = ProgressStore(tmp_path)
    app = TutorApp(lang=lang, load_engine=False, still=True, store=store)
    async with app.run_test(size=(80, 24)) as pilot:
        store._db = FullDisk()
        for _ in range(2):
            app.on_exercise_panel_graded(ExercisePanel.Graded(exercise, variant, answer, result, 0, 1.0))
            await pilot.pause()
        toasts = [n.message for n in app._notifications if n.severity == "error"]
    assert len(toasts) == 1 and said in toasts[0] and "disk is full" in toasts[0]


def test_a_notice_without_a_key_is_shown_as_it_is():
    """The class database's learner store (exercises/classdb) still reports in plain
    English strings: they pass through notice_text unchanged rather than failing."""
    line = "this session ended (signed-in-elsewhere); nothing more is saved here"
    assert notice_text(line, "zh") == line == notice_text(line, "en")
