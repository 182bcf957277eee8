"""Taking a quiz as a student would (Pilot), then grading the class."""

import asyncio
import csv
import io
import json

from textual.widgets import RadioSet

from exercises.catalogue import get
from exercises.classroom.exam import ExamSession
from exercises.classroom.quiz import Quiz, grade_class, gradebook_csv, questions_for, report_markdown
from tui.app import TutorApp
from tui.widgets.matrix_editor import MatrixEditor

QUIZ = Quiz("quiz-exam", "Week 7", "exam-salt", ("mlm-abcde", "clm-shift", "mask-matrix", "concept-task"), 30)


async def ready(app) -> None:
    for _ in range(600):
        if app.engine_loaded and app.screen.query("QuestionView"):
            await asyncio.sleep(0.05)
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the exam did not load")


def solutions(student: str) -> list[dict[str, str]]:
    out = []
    for question in questions_for(QUIZ, student):
        exercise = get(question.exercise)
        out.append(exercise.solve(exercise.generate(question.seed)))
    return out


async def fill(pilot, app, index: int, answer: dict[str, str]) -> None:
    """Answer one question through its widgets, as a student does."""
    view = app.screen.query_one(f"#view-q{index}")
    app.screen.query_one("Tabs").active = f"q{index}"
    await pilot.pause()
    for part, text in answer.items():
        widget = view.query_one(f"#part-{part}")
        if isinstance(widget, MatrixEditor):
            from exercises.grading.parsing import matrix

            target = matrix(text, widget.n)
            widget.focus()
            for row in range(widget.n):
                for column in range(widget.n):
                    if widget.cells[row][column] != target[row][column]:
                        widget.cursor = (row, column)
                        await pilot.press("space")
        elif isinstance(widget, RadioSet):  # a ChoiceSet (h4: parts render as ChoiceSet)
            widget.focus()
            await pilot.pause()
            widget.query("RadioButton")[ord(text) - 65].value = True
        else:
            widget.value = text
        await pilot.pause()


async def take(tmp_path, student: str, answers: dict[int, dict[str, str]], lang="en"):
    session = ExamSession.open(QUIZ, student, tmp_path)
    app = TutorApp(lang=lang, still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        for index, answer in answers.items():
            await fill(pilot, app, index, answer)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Press Submit again" in str(app.screen.query_one("#exam-status").content) or lang != "en"
        await pilot.press("ctrl+s")
        await pilot.pause()
        results = str(app.screen.query_one("#results-text").content)
        assert app.screen.query_one("#results").display
    return session, results


async def test_two_students_take_the_quiz_and_the_class_is_graded_exactly(tmp_path):
    right = dict(enumerate(solutions("ann")))
    _, ann_results = await take(tmp_path, "ann", right)
    assert "Your results: 4.00 of 4 (100%)" in ann_results

    bob_variant = get("mlm-abcde").generate(questions_for(QUIZ, "bob")[0].seed)
    one_based = ", ".join(str(i + 1) for i in bob_variant.data["loss_positions"])
    bob_solution = solutions("bob")
    mask_n = get("mask-matrix").generate(questions_for(QUIZ, "bob")[2].seed).data["n"]
    inverted = "\n".join(
        " ".join(str(1 - c) for c in row)
        for row in get("mask-matrix").generate(questions_for(QUIZ, "bob")[2].seed).data["mask"]
    )
    assert mask_n >= 3
    classic = {
        0: {
            "input": bob_solution[0]["input"],
            "loss_positions": one_based,
            "labels": bob_solution[0]["labels"],
        },
        1: {"inputs": bob_solution[1]["inputs"], "labels": bob_solution[1]["inputs"]},  # labels not shifted
        2: {"matrix": inverted},
    }
    _, bob_results = await take(tmp_path, "bob", classic)
    assert "not answered" in bob_results and "1 = blocked" not in bob_results

    submission = json.loads((tmp_path / "bob.submission.json").read_text(encoding="utf-8"))
    assert set(submission) >= {"quiz", "student", "answers", "timeline", "app_version", "engine_version"}
    assert submission["quiz"] == QUIZ.id and submission["answers"]["1"]["labels"] == bob_solution[1]["inputs"]
    assert submission["timeline"]["0"] and "score" not in json.dumps(submission["answers"])
    submission["score"] = 4.0  # a forged score changes nothing
    (tmp_path / "bob.submission.json").write_text(json.dumps(submission), encoding="utf-8")

    result = grade_class(QUIZ, [tmp_path / "ann.submission.json", tmp_path / "bob.submission.json"])
    assert result.rejected == []
    rows = list(csv.reader(io.StringIO(gradebook_csv(QUIZ, result.grades))))
    assert rows[1] == ["ann", "1.00", "1.00", "1.00", "1.00", "4.00", "100.0"]
    bob = rows[2]
    assert (
        bob[0] == "bob" and bob[3] == "0.00" and bob[4] == "0.00"
    )  # inverted mask; unanswered last question
    assert float(bob[1]) < 1 and float(bob[2]) < 1
    print("BOBROW", bob)
    report = report_markdown(QUIZ, result)
    for code in ("one-based-positions", "labels-not-shifted", "mask-inverted"):
        assert f"**{code}** × 1" in report and "(students: bob)" in report
    assert "| 1 | mlm-abcde | 0.92 | 1/2 |" in report and "| 4 | concept-task | 0.50 | 1/2 |" in report
    assert "2 submissions graded." in report and "Class mean: 66.7%" in report


async def test_a_closed_exam_resumes_where_it_was(tmp_path):
    session = ExamSession.open(QUIZ, "cat", tmp_path)
    app = TutorApp(lang="zh", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        await fill(pilot, app, 1, {"inputs": "a b c"})
    saved = json.loads((tmp_path / "cat.quiz-autosave.json").read_text(encoding="utf-8"))
    assert saved["answers"] == {"1": {"inputs": "a b c"}}
    again = ExamSession.open(QUIZ, "cat", tmp_path)
    assert again.started_at == session.started_at  # the clock does not restart
    app = TutorApp(lang="zh", still=True, exam=again)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        assert app.screen.query_one("#view-q1 #part-inputs").value == "a b c"
        assert str(app.screen.query_one("#q1").label).startswith("2 ✓")


async def test_time_up_submits_by_itself(tmp_path):
    session = ExamSession.open(QUIZ, "dan", tmp_path)
    session.started_at -= 31 * 60  # the 30-minute limit has passed
    app = TutorApp(lang="en", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        await pilot.pause(1.2)
    assert (tmp_path / "dan.submission.json").exists()


def test_an_unreadable_autosave_is_kept_aside(tmp_path):
    (tmp_path / "eve.quiz-autosave.json").write_text("{half", encoding="utf-8")
    session = ExamSession.open(QUIZ, "eve", tmp_path)
    assert session.answers == {} and "kept as" in session.notice
    assert list(tmp_path.glob("eve.quiz-autosave.json.*.bad"))


async def test_exam_mode_has_no_way_out_to_lessons_or_solutions(tmp_path):
    session = ExamSession.open(QUIZ, "fay", tmp_path)
    app = TutorApp(lang="en", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert type(app.screen).__name__ == "ExamScreen"  # no command palette
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert app.lang == "en"
        await pilot.press("f1")
        await pilot.pause()
        assert "Exam keys" in app.screen.query_one("Markdown").source


async def test_typing_a_letter_answers_exam_multiple_choice(tmp_path):
    session = ExamSession.open(QUIZ, "gus", tmp_path)
    app = TutorApp(lang="en", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        await pilot.press("pagedown", "pagedown", "pagedown")  # question 4, concept-task
        await pilot.pause()
        assert app.screen.query_one("Tabs").active == "q3"
        app.screen.query_one("#view-q3 #part-choice").focus()
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
    assert session.answers[3] == {"choice": "B"}
