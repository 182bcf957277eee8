"""Taking a quiz as students would (Pilot), then grading the class: roster and
PINs, signatures, a forger, a conflict, a late student, release of results."""

import asyncio
import csv
import io
import json
import re
import time
from dataclasses import replace

import pytest
from textual.widgets import RadioSet

from exercises.catalogue import get
from exercises.classroom.exam import ExamSession
from exercises.classroom.grading import grade_class
from exercises.classroom.identity import (
    QUIZ_PIN_BODY,
    Student,
    TeacherFile,
    dump_teacher_file,
    lock_quiz,
    new_pin,
    new_release_secret,
    sign,
)
from exercises.classroom.quiz import Quiz, dump_toml, questions_for, variant_fingerprint
from exercises.classroom.report import gradebook_csv, report_markdown
from tests.pilot import engine_ready
from tui.app import TutorApp
from tui.cli import main
from tui.widgets.matrix_editor import MatrixEditor

QUIZ = Quiz("quiz-exam", "Week 7", "exam-salt", ("mlm-abcde", "clm-shift", "mask-matrix", "concept-task"), 30)


async def ready(app, view: str = "QuestionView") -> None:
    """Until the engine is loaded, the exam shows ``view`` (a lab question: LabQuestionView) and
    its first answer box has the focus: the views are in the DOM before their mount finishes,
    and a key sent in between went nowhere (a CI failure under load)."""
    await engine_ready(app)
    for _ in range(600):
        focused = app.focused
        if focused is not None and any(type(node).__name__ == view for node in focused.ancestors):
            return  # mounted and the first answer box has the keys: a typed key lands there
        await asyncio.sleep(0.05)
    raise AssertionError(f"the exam did not show {view}")


def solutions(quiz: Quiz, student: str) -> list[dict[str, str]]:
    out = []
    for question in questions_for(quiz, student):
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
            await pilot.press(text.lower())
        else:
            widget.value = text
        await pilot.pause()


async def take(session, answers: dict[int, dict[str, str]], lang="en") -> str:
    """Answer, submit (twice: the confirmation), and return what the results page says."""
    app = TutorApp(lang=lang, still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        for index, answer in answers.items():
            await fill(pilot, app, index, answer)
        await pilot.press("ctrl+s")
        await pilot.pause()
        status = str(app.screen.query_one("#exam-status").content)
        assert ("Press Submit again" in status) if lang == "en" else ("再按一次" in status)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen.query_one("#results").display
        return str(app.screen.query_one("#results-text").content)


@pytest.mark.slow
async def test_a_class_round_trip_with_roster_signatures_a_forger_a_conflict_lateness_and_release(tmp_path):
    secret, check = new_release_secret()
    quiz = replace(QUIZ, results="after-release", created_at=time.time() - 7200, release_check=check)
    quiz, roster = lock_quiz(  # what `quiz new --roster` does: a PIN check per student in the handout
        quiz,
        [
            Student(f"s{n}", name, new_pin(f"s{n}", QUIZ_PIN_BODY))
            for n, name in enumerate(["Ann", "李明", "Cat", "Dan", "Eve", "Fay"], 1)
        ],
    )
    ann, li, cat, dan, eve, _fay = roster
    quiz_file = tmp_path / "quiz.toml"
    quiz_file.write_text(dump_toml(quiz), encoding="utf-8")
    teacher = dump_teacher_file(quiz, TeacherFile(roster, secret))
    (tmp_path / "quiz.teacher.toml").write_text(teacher, encoding="utf-8")
    inbox = tmp_path / "inbox"

    # Ann answers everything right in English; results wait for the release
    held = await take(
        ExamSession.open(quiz, ann.id, inbox, pin=ann.pin), dict(enumerate(solutions(quiz, ann.id)))
    )
    assert "releases the results later" in held and "100%" not in held

    # 李明 works in Chinese, is killed mid-quiz (nothing closed, nothing submitted), resumes, slips
    first = ExamSession.open(quiz, li.id, inbox, pin=li.pin)
    first.set_answer(1, "inputs", solutions(quiz, li.id)[1]["inputs"])
    first.close()  # what kill -9 leaves: the autosave, the lock dropped by the kernel
    resumed = ExamSession.open(quiz, li.id, inbox, pin=li.pin)
    assert resumed.started_at == first.started_at and resumed.answers == first.answers
    li_solution = solutions(quiz, li.id)
    held_zh = await take(resumed, {1: {"labels": li_solution[1]["inputs"], "pairs": "t->t"}}, lang="zh")
    assert "老师稍后发布" in held_zh

    # Cat's time ran out long ago: opening submits at once, flagged late
    cat_session = ExamSession.open(quiz, cat.id, inbox, pin=cat.pin, now=time.time() - 45 * 60)
    cat_session.answers = {3: {"choice": solutions(quiz, cat.id)[3]["choice"]}}
    app = TutorApp(lang="en", still=True, exam=cat_session)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            await pilot.pause(0.1)
            if cat_session.submitted_at is not None:
                break
    assert cat_session.submission_path.exists()

    # Dan takes the quiz in two folders: two different signed submissions
    for folder, text in ((inbox, "a"), (tmp_path / "elsewhere", "b")):
        session = ExamSession.open(quiz, dan.id, folder, pin=dan.pin)
        session.set_answer(1, "inputs", text)
        session.submit()
        session.close()
    second_dan = next((tmp_path / "elsewhere").glob("*.submission.json"))
    (inbox / "dan-again.json").write_bytes(second_dan.read_bytes())

    # Eve forges a perfect submission for 李明 with her own PIN, and one with no signature
    forged = json.loads(resumed.submission_path.read_text(encoding="utf-8"))
    forged["answers"] = {
        str(q.index): {"exercise": q.exercise, "seed": q.seed, "parts": li_solution[q.index]}
        for q in questions_for(quiz, li.id)
    }
    forged["signature"] = sign(forged, eve.key)
    (inbox / "li-fixed.json").write_text(json.dumps(forged, ensure_ascii=False), encoding="utf-8")
    forged["signature"] = None
    (inbox / "li-unsigned.json").write_text(json.dumps(forged, ensure_ascii=False), encoding="utf-8")

    book, report = tmp_path / "grades.csv", tmp_path / "report.md"
    argv = ["quiz", "grade", str(quiz_file), str(inbox), "--teacher", str(tmp_path / "quiz.teacher.toml")]
    assert main([*argv, "--csv", str(book), "--report", str(report)]) == 1  # rejected files and a conflict
    rows = {row[0]: row for row in csv.reader(io.StringIO(book.read_text(encoding="utf-8")))}
    assert list(rows)[1:] == ["s1", "s2", "s3", "s4", "s5", "s6"]
    assert rows["s1"][:7] == ["s1", "Ann", "4", "4", "100.0", "submitted", ""]
    assert rows["s2"][1] == "李明" and rows["s2"][5] == "submitted" and float(rows["s2"][2]) < 2
    assert rows["s3"][5] == "submitted" and rows["s3"][6] == "late" and rows["s3"][2] == "1"
    assert rows["s4"][5] == "conflict" and rows["s4"][2] == ""
    assert rows["s5"][5] == rows["s6"][5] == "did not submit"
    text = report.read_text(encoding="utf-8")
    assert "signature does not match s2's PIN" in text and "li-unsigned.json" in text
    assert "**labels-not-shifted** × 1" in text and "**late** × 1" in text
    assert "Conflicts" in text and "dan-again.json" in text

    # the teacher releases the results; Ann opens the quiz again and sees them
    assert main(["quiz", "release", str(quiz_file), "--out", str(inbox)]) == 0
    app = TutorApp(lang="en", still=True, exam=ExamSession.open(quiz, ann.id, inbox, pin=ann.pin))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if "Your results" in str(app.screen.query_one("#results-text").content):
                break
        assert "Your results: 4.00 of 4 (100%)" in str(app.screen.query_one("#results-text").content)


@pytest.mark.slow
async def test_two_students_results_carry_the_graders_feedback(tmp_path):
    right = dict(enumerate(solutions(QUIZ, "ann")))
    ann_results = await take(ExamSession.open(QUIZ, "ann", tmp_path), right)
    assert "Your results: 4.00 of 4 (100%)" in ann_results

    bob_solution = solutions(QUIZ, "bob")
    bob_variant = get("mlm-abcde").generate(questions_for(QUIZ, "bob")[0].seed)
    one_based = ", ".join(str(i + 1) for i in bob_variant.data["loss_positions"])
    inverted = "\n".join(
        " ".join(str(1 - c) for c in row)
        for row in get("mask-matrix").generate(questions_for(QUIZ, "bob")[2].seed).data["mask"]
    )
    classic = {
        0: {
            "inputs": bob_solution[0]["inputs"],
            "loss_positions": one_based,
            "labels": bob_solution[0]["labels"],
        },
        # labels = inputs and logit t against label t: the model would copy (right in neither layout)
        1: {"inputs": bob_solution[1]["inputs"], "labels": bob_solution[1]["inputs"], "pairs": "t->t"},
        2: {"matrix": inverted},
    }
    bob_session = ExamSession.open(QUIZ, "bob", tmp_path)
    bob_results = await take(bob_session, classic)
    assert (
        "not answered" in bob_results and "counted from 1" in bob_results.lower()
    ) or "from 0" in bob_results
    submission = json.loads(bob_session.submission_path.read_text(encoding="utf-8"))
    assert submission["answers"]["1"] == {
        "exercise": "clm-shift",
        "seed": questions_for(QUIZ, "bob")[1].seed,
        "variant": variant_fingerprint(get("clm-shift").generate(questions_for(QUIZ, "bob")[1].seed)),
        "parts": {"inputs": bob_solution[1]["inputs"], "labels": bob_solution[1]["inputs"], "pairs": "t->t"},
    }
    assert submission["quiz_hash"] == QUIZ.question_hash and submission["kind"] == "submission"
    assert submission["timeline"]["0"] and "score" not in json.dumps(submission["answers"])
    submission["score"] = 4.0  # a forged score changes nothing
    bob_session.submission_path.write_text(json.dumps(submission), encoding="utf-8")
    files = sorted(tmp_path.glob("*.submission.json"))
    result = grade_class(QUIZ, files)
    assert result.rejected == []
    rows = list(csv.reader(io.StringIO(gradebook_csv(QUIZ, result.grades))))
    assert rows[1][:5] == ["ann", "", "4", "4", "100.0"]
    bob = rows[2]
    assert bob[0] == "bob" and bob[9] == "0.00" and bob[10] == "0.00"  # inverted mask; unanswered
    assert float(bob[7]) < 1 and float(bob[8]) < 1
    report = report_markdown(QUIZ, result)
    for code in ("one-based-positions", "labels-not-shifted", "mask-inverted"):
        assert f"**{code}** × 1" in report
    assert (
        "| 1 | mlm-abcde | 1 | 0.75 | 1/2 |" in report and "| 4 | concept-task | 1 | 0.50 | 1/2 |" in report
    )
    assert "Class mean: 62.5%" in report  # counted from 1: the flat half (issue 9)


async def test_a_closed_exam_resumes_where_it_was(tmp_path):
    session = ExamSession.open(QUIZ, "cat", tmp_path)
    app = TutorApp(lang="zh", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        await fill(pilot, app, 1, {"inputs": "a b c"})
        for _ in range(100):  # the change is saved from the input's message: let it arrive
            if session.answers.get(1, {}).get("inputs") == "a b c":
                break
            await pilot.pause(0.05)
    session.close()
    saved = json.loads(session.autosave_path.read_text(encoding="utf-8"))
    assert saved["answers"]["1"]["parts"] == {"inputs": "a b c"}
    again = ExamSession.open(QUIZ, "cat", tmp_path)
    assert again.started_at == session.started_at  # the clock does not restart
    app = TutorApp(lang="zh", still=True, exam=again)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        box = app.screen.query_one("#view-q1 #part-inputs")
        for _ in range(100):  # restored when the question view mounts
            if box.value:
                break
            await pilot.pause(0.05)
        assert box.value == "a b c"
        assert str(app.screen.query_one("#q1").label).startswith("2 ✓")


async def test_time_up_submits_by_itself(tmp_path):
    session = ExamSession.open(QUIZ, "dan", tmp_path, now=time.time() - 30 * 60 - 2)
    app = TutorApp(lang="en", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        # Time is up from the start; the exam hands in at its next once-a-second tick after
        # the engine (which grades) has loaded. Waits for those events, not for a budget:
        # the loop below only keeps a broken build from hanging (a tick is 1 s; 60 s here).
        await engine_ready(app)
        for _ in range(1200):
            if session.submitted_at is not None and app.screen.query_one("#results").display:
                break
            await pilot.pause(0.05)
        assert session.submission_path.exists() and session.submitted_at is not None
        assert "Your results" in str(app.screen.query_one("#results-text").content)


@pytest.mark.parametrize(
    ("left", "lang", "shown"),
    [
        (600, "en", r"· 10 min left$"),  # whole minutes, rounded up, far from the end
        (400, "zh", r"· 剩余 7 分钟$"),
        (250, "en", r"· 4:[01]\d left$"),  # the last five minutes to the second
        (250, "zh", r"· 剩余 4:[01]\d$"),
    ],
)
async def test_the_countdown_shows_seconds_only_near_the_end(tmp_path, left, lang, shown):
    """Far from the end the title changes once a minute: every change repaints the header,
    in a class in every open tab (benchmarks/class_server.py measures what idling costs)."""
    session = ExamSession.open(QUIZ, "eve", tmp_path, now=time.time() - 30 * 60 + left)
    app = TutorApp(lang=lang, still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen._tick()
        assert re.search(shown, app.sub_title), app.sub_title


@pytest.mark.slow
async def test_exam_mode_has_no_way_out_to_lessons_or_solutions(tmp_path):
    session = ExamSession.open(QUIZ, "fay", tmp_path)
    app = TutorApp(lang="en", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        app.screen.query_one("Tabs").focus()  # keys that are not typed into an answer box
        for key in ("h", "s", "n", "f5", "f6", "f7", "ctrl+p", "ctrl+l", "ctrl+t", "escape"):
            await pilot.press(key)
            await pilot.pause()
            assert type(app.screen).__name__ == "ExamScreen", key
            assert app.lang == "en"
        for key in ("question_mark", "f1"):
            app.screen.query_one("Tabs").focus()
            await pilot.press(key)
            await pilot.pause()
            assert type(app.screen).__name__ == "HelpScreen" and app.screen.exam  # the exam's own help only
            await pilot.press("escape")
            await pilot.pause()
        app.open_lesson("clm", "clm-shift")  # the lesson screen, asked for directly
        app.open_page("review")
        await pilot.pause()
        assert type(app.screen).__name__ == "ExamScreen" and len(app.screen_stack) == 1
        box = app.screen.query_one("#view-q0 #part-inputs")
        box.focus()
        await pilot.press("h", "s", "n")  # in an answer box they are just letters
        await pilot.pause()
        assert box.value == "hsn" and session.answers[0]["inputs"] == "hsn"
        assert "solution" not in str(app.screen.query_one("#exam-status").content).lower()


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


def burst(app, keys: str) -> None:
    """Keys arriving in one read, as over SSH or from tmux: queued before any is handled."""
    from textual import events

    names = {"\r": "enter", "\x1b[6~": "pagedown", " ": "space"}
    for key in keys:
        app.post_message(events.Key(names.get(key, key), None if key in "\r" else key))


async def _until(pilot, done, tries: int = 400) -> None:
    """Let the app work until ``done()`` holds (or ``tries`` short pauses pass): a
    condition, not a fixed wait that a loaded machine outruns."""
    for _ in range(tries):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app never reached the state the test waits for")


async def test_keys_typed_ahead_land_in_the_box_they_were_typed_for(tmp_path):
    session = ExamSession.open(QUIZ, "hal", tmp_path)
    app = TutorApp(lang="en", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        burst(app, "ab\rc\rd\r")  # three boxes of question 1, then on to question 2
        burst(app, "ef\rg")
        await _until(pilot, lambda: session.answers.get(1, {}).get("labels") == "g")
        await pilot.press("pagedown", "pagedown")
        burst(app, "c")
        await _until(pilot, lambda: session.answers.get(3, {}).get("choice") == "C")
    assert session.answers[0] == {"inputs": "ab", "loss_positions": "c", "labels": "d"}
    assert session.answers[1] == {"inputs": "ef", "labels": "g"}
    assert session.answers[3] == {"choice": "C"}


async def test_the_line_above_the_footer_says_what_enter_does(tmp_path):
    session = ExamSession.open(QUIZ, "ivy", tmp_path)
    app = TutorApp(lang="zh", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        await pilot.pause(0.2)
        seen = []
        for _ in range(4):
            seen.append(str(app.screen.query_one("#exam-help").content))
            await pilot.press("pagedown")
            await pilot.pause()
    assert seen[0].startswith("回车：下一个输入框") and seen[1] == seen[0]
    assert seen[2].startswith("方向键 + 空格") and seen[3].startswith("字母键")


async def test_results_scroll_by_keys(tmp_path):
    session = ExamSession.open(QUIZ, "joe", tmp_path)
    wrong = {0: {"inputs": "x", "loss_positions": "9", "labels": "9: z"}, 1: {"inputs": "q", "labels": "r"}}
    app = TutorApp(lang="en", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app)
        for index, answer in wrong.items():
            await fill(pilot, app, index, answer)
        await pilot.press("ctrl+s", "ctrl+s")
        await pilot.pause()
        results = app.screen.query_one("#results")
        assert results.max_scroll_y > 0 and results.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert results.scroll_y > 0
        await pilot.press("home", "down", "down")
        await pilot.pause()
        assert results.scroll_y == 2


LAB_QUIZ = Quiz("quiz-exam-lab", "Lab week", "lab-salt", ("lab:causal_mask", "mask-matrix"), 30)


@pytest.mark.slow
async def test_a_lab_question_attaches_the_file_rereads_it_and_grades_it_after_submitting(tmp_path):
    """The student types the path and Enter: the pane says what is attached (size, lines,
    whether Python can read it); Ctrl+R reads the saved file again; a wrong path says why
    and keeps the file attached before; after submitting, the file runs in the sandbox."""
    from exercises.lab.tasks import BY_ID
    from exercises.lab.tasks import solution as reference

    draft = tmp_path / "10_causal_mask.py"
    draft.write_text("def causal_mask(n):\n    return (\n", encoding="utf-8")
    session = ExamSession.open(LAB_QUIZ, "kim", tmp_path / "out")
    app = TutorApp(lang="en", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, "LabQuestionView")
        await pilot.pause(0.2)
        status = app.screen.query_one("#lab-status")
        assert "No file attached yet" in str(status.content)
        assert "Ctrl+R: re-read" in str(app.screen.query_one("#exam-help").content)
        box = app.screen.query_one("#lab-path")
        assert app.focused is box and box.value == BY_ID["causal_mask"].file_name
        await pilot.press("ctrl+a", "ctrl+k", *str(draft), "enter")
        await pilot.pause()
        shown = str(status.content)
        assert "Attached: …" in shown and f"{draft.name} · 33 bytes · 2 lines" in shown
        assert "never closed" in shown
        draft.write_text(reference(BY_ID["causal_mask"]), encoding="utf-8")
        await pilot.press("ctrl+r")
        await pilot.pause()
        shown = str(status.content)
        assert f"{draft.stat().st_size} bytes" in shown and "Python can read it" in shown
        assert session.answers[0]["source"] == draft.read_text(encoding="utf-8")
        await pilot.press("ctrl+a", "ctrl+k", *"nowhere.py", "enter")
        await pilot.pause()
        shown = str(status.content)
        assert "there is no file nowhere.py" in shown and "attached before is kept" in shown
        assert app.screen.query_one("#q0").label.plain == "1 ✓"
        await pilot.press("ctrl+s", "ctrl+s")
        for _ in range(600):
            if "Every rule holds" in str(app.screen.query_one("#results-text").content):
                break
            await asyncio.sleep(0.05)
        text = str(app.screen.query_one("#results-text").content)
        assert "Code lab: The causal mask: 100%" in text and "Your file: Every rule holds." in text
    submitted = json.loads(session.submission_path.read_text(encoding="utf-8"))
    assert submitted["answers"]["0"]["parts"]["source"] == draft.read_text(encoding="utf-8")
    assert submitted["answers"]["0"]["parts"]["file"] == str(draft)


async def test_the_lab_pane_speaks_chinese(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "我的文件.py").write_text("def causal_mask(n):\n    return None\n", encoding="utf-8")
    session = ExamSession.open(LAB_QUIZ, "李明", tmp_path / "out")
    app = TutorApp(lang="zh", still=True, exam=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, "LabQuestionView")
        await pilot.pause(0.2)
        status = app.screen.query_one("#lab-status")
        assert "还没有附上文件" in str(status.content)
        await pilot.press("enter")  # the prefilled name does not exist here
        await pilot.pause()
        assert "没有文件 10_causal_mask.py" in str(status.content)
        app.screen.query_one("#lab-path").value = "我的文件.py"
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert "已附上：我的文件.py · 36 字节 · 2 行" in str(status.content)
        assert "Python 能读懂它" in str(status.content)
        footer = " ".join(
            b.binding.description for b in app.screen.active_bindings.values() if b.binding.show
        )
        assert "重读文件" in footer
