"""What the teacher reads: the gradebook (CSV: plain for a spreadsheet, or in the
columns Canvas or Moodle import) and the class report (Markdown): the score
distribution, per question the mean, how many got it right, a discrimination
index, option counts and the misconceptions seen, with who."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Sequence

from exercises.classroom.grading import (
    AT_CLOSE,
    CONFLICT,
    EXTENDED,
    IN_PROGRESS,
    MISSING,
    REJECTED,
    SUBMITTED,
    ClassResult,
    QuestionGrade,
    StudentGrade,
)
from exercises.classroom.histogram import (
    LEGEND,
    answer_bins,
    answer_counts,
    bar_lines,
    score_bins,
    stacked_bar,
)
from exercises.classroom.quiz import Quiz, is_lab, iso_time, question_title
from exercises.classroom.safe import csv_cell, markdown
from exercises.grading.marks import full_marks
from exercises.text import L, pick

LMS_COLUMNS = ("student_id", "name", "points", "max", "percent")
FORMATS = ("plain", "canvas", "moodle")
# Canvas's gradebook importer (app/models/gradebook_importer.rb): a header that starts
# Student, ID, then SIS User ID and SIS Login ID, and ends its student columns with
# Section; every later column is an assignment (an unknown title makes a new one), so
# nothing else may follow; an optional "Points Possible" row sets the maximum.
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
# Moodle's CSV grade import maps columns by hand: ID number -> useridnumber ("Identify
# user by"), the quiz's column -> a grade item, Feedback -> its feedback; the rest are
# ignored. A grade of "-" (or empty) is no grade.
MOODLE_COLUMNS = ("ID number", "Full name")
SHOWN_CODES = 5
SHOWN_NAMES = 5
UPPER_LOWER = 0.27

STATUS = {
    SUBMITTED: L("submitted", "已提交"),
    AT_CLOSE: L("taken at close", "截止时收卷"),
    EXTENDED: L("extended", "已延时"),
    IN_PROGRESS: L("in progress", "作答中"),
    REJECTED: L("rejected", "被拒收"),
    MISSING: L("did not submit", "未提交"),
    CONFLICT: L("conflict", "冲突"),
}  # one per grading.STATUSES
FLAG_TEXT = {
    "late": L("late (after start + time limit + grace)", "迟交（超过开始时间 + 时限 + 宽限）"),
    "before-open": L("started before the quiz opened", "在测验开放前开始"),
    "after-close": L("submitted after the quiz closed", "在测验关闭后提交"),
    "clock-implausible": L(
        "times impossible (clock changed or file edited)", "时间不合常理（改过时钟或文件）"
    ),
    "no-times": L("no start or submit time", "没有开始或提交时间"),
    "quiz-edited": L("answered an earlier version of the quiz", "作答的是修改前的测验"),
    "handout-edited": L(
        "the student's copy of the quiz file had other rules (results, times): edited",
        "学生手中的测验文件规则（成绩发布、时间）与原件不同：被改动过",
    ),
    "unisolated": L(
        "lab file run without the OS's isolation (--run-student-code-unisolated)",
        "实验文件在没有系统隔离的情况下运行（--run-student-code-unisolated）",
    ),
}
WORDS = {
    "summary": L(
        "{graded} graded · {missing} did not submit · {conflicts} conflicts · {rejected} files rejected · {skipped} autosaves skipped",
        "已评分 {graded} · 未提交 {missing} · 冲突 {conflicts} · 被拒收文件 {rejected} · 跳过自动保存 {skipped}",
    ),
    "distribution": L("Score distribution", "分数分布"),
    "distribution-note": L(
        "Percent of the maximum ({maximum:g} points), {graded} graded students:",
        "得分占满分（{maximum:g} 分）的百分比，已评分 {graded} 人：",
    ),
    "per-question": L("Each question at a glance", "各题一览"),
    "answers": L("Answers:", "作答情况："),
    "mean": L(
        "Class mean: {percent:.1f}% ({points:.2f} of {maximum:g} points)",
        "班级平均：{percent:.1f}%（{points:.2f} / {maximum:g} 分）",
    ),
    "questions": L("Questions", "各题"),
    "table": L(
        "| # | exercise | points | mean | right | discrimination |",
        "| # | 练习 | 分值 | 平均 | 全对 | 区分度 |",
    ),
    "discrimination-note": L(
        "Discrimination: mean score of the top 27 % of the class minus the bottom 27 % (by total); near 0 or negative: the question does not separate stronger from weaker students.",
        "区分度：总分前 27% 学生的平均得分减去后 27% 的平均得分；接近 0 或为负，说明此题区分不出强弱。",
    ),
    "question": L("Question {n}: {exercise} (worth {points:g})", "第 {n} 题：{exercise}（{points:g} 分）"),
    "no-answer": L("no answer", "未作答"),
    "options": L("Options picked: ", "各选项人数："),
    "no-misconceptions": L("No misconception seen.", "没有发现误区。"),
    "students": L("students", "学生"),
    "more-names": L("+{n} more (quiz grade --all)", "另有 {n} 人（quiz grade --all）"),
    "more-codes": L("+{n} more misconceptions (quiz grade --all)", "另有 {n} 种误区（quiz grade --all）"),
    "most-wrong": L("Questions most students got wrong", "答错最多的题"),
    "flags": L("Flags", "标记"),
    "conflicts": L(
        "Conflicts (two different submissions for one student: neither graded)",
        "冲突（同一学生的两份不同提交：都未评分）",
    ),
    "rejected": L("Rejected files", "被拒收的文件"),
    "skipped": L("Autosave files skipped (not submissions)", "跳过的自动保存文件（不是提交）"),
    "missing": L("Did not submit", "未提交"),
    "rejected-students": L(
        "Rejected (each has a file that failed a check: look at it before grading by hand)",
        "被拒收（每人都有未通过检查的文件：请先查看再决定）",
    ),
    "none": L("none", "无"),
    "lab-passed": L(
        "Files that pass every rule: {passed} of {files} handed in ({total} students graded)",
        "满足全部规则的文件：{passed} / {files} 份（评分学生 {total} 人）",
    ),
    "lab-rules": L(
        "First rule broken (stopped: time or memory limit; invalid: Python cannot read the file; not-started: the starter left as it was):",
        "最先违反的规则（stopped：超出时间或内存限制；invalid：Python 读不懂文件；not-started：起始文件原样未改）：",
    ),
}


def points_text(value: float) -> str:
    """Points as people write them: 2, 1.5, 0.67."""
    return f"{round(value, 2):g}"


def _iso(epoch: float | None) -> str:
    return "" if epoch is None else iso_time(float(int(epoch)))


def gradebook_csv(quiz: Quiz, grades: Sequence[StudentGrade], fmt: str = "plain", lang: str = "en") -> str:
    """The gradebook in ``fmt`` (FORMATS): every roster student, in roster order, with a
    status: submitted, taken at close, extended, rejected, did not submit, conflict."""
    rows = {"plain": _plain_rows, "canvas": _canvas_rows, "moodle": _moodle_rows}[fmt](quiz, grades, lang)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _plain_rows(quiz: Quiz, grades: Sequence[StudentGrade], lang: str) -> list[list[str]]:
    """The first five columns are what a spreadsheet or an LMS mapping needs; points and
    percent are empty unless graded; ``why`` says what a rejected file got wrong."""
    rows = [
        [
            *LMS_COLUMNS,
            "status",
            "flags",
            *(f"q{i + 1} {exercise}" for i, exercise in enumerate(quiz.exercises)),
            *(f"q{i + 1} rule" for i in _lab_indexes(quiz)),
            "started_at",
            "submitted_at",
            "files",
            "why",
        ]
    ]
    for grade in grades:
        graded = grade.graded
        rows.append(
            [
                csv_cell(grade.student),
                csv_cell(grade.name),
                points_text(grade.total) if graded else "",
                points_text(grade.maximum),
                f"{grade.percent:.1f}" if graded else "",
                grade.status,
                " ".join(grade.flags),
                *((f"{q.points:.2f}" if graded else "") for q in grade.questions),
                *(lab_outcome(grade.questions[i]) if graded else "" for i in _lab_indexes(quiz)),
                _iso(grade.started_at),
                _iso(grade.submitted_at),
                csv_cell(" ".join(grade.files)),
                csv_cell(pick(grade.why, lang)) if grade.why else "",
            ]
        )
    return rows


def _canvas_rows(quiz: Quiz, grades: Sequence[StudentGrade], lang: str) -> list[list[str]]:
    """Canvas: the roster id as SIS User ID and SIS Login ID (Canvas tries each, then the
    name); points, or empty (no change) when not graded; the status cannot travel here
    (another column would become an assignment): it is in the plain gradebook."""
    title = csv_cell(quiz.title)
    rows = [[*CANVAS_COLUMNS, title], ["Points Possible", "", "", "", "", points_text(quiz.maximum)]]
    for grade in grades:
        student = csv_cell(grade.student)
        rows.append(
            [
                csv_cell(grade.name or grade.student),
                "",
                student,
                student,
                "",
                points_text(grade.total) if grade.graded else "",
            ]
        )
    return rows


def _moodle_rows(quiz: Quiz, grades: Sequence[StudentGrade], lang: str) -> list[list[str]]:
    """Moodle: ID number to identify the user, the points (or "-": no grade), feedback
    that says the status in words (Moodle shows it to the student: the flags, which
    are the teacher's to weigh, stay in the plain gradebook), and the status."""
    title = csv_cell(f"{quiz.title} ({points_text(quiz.maximum)})")
    rows = [[*MOODLE_COLUMNS, title, "Feedback", "status"]]
    for grade in grades:
        words = [pick(STATUS[grade.status], lang)]
        if grade.why:
            words.append(pick(grade.why, lang))
        rows.append(
            [
                csv_cell(grade.student),
                csv_cell(grade.name),
                points_text(grade.total) if grade.graded else "-",
                csv_cell("; ".join(words)),
                grade.status,
            ]
        )
    return rows


def _lab_indexes(quiz: Quiz) -> list[int]:
    return [index for index, exercise in enumerate(quiz.exercises) if is_lab(exercise)]


def lab_outcome(question: QuestionGrade) -> str:
    """A lab question in one word: "pass", the first rule the file broke, "stopped"
    (time or memory), "invalid" (Python cannot read it), or "" when no file was handed in."""
    if not question.answered:
        return ""
    return "pass" if full_marks(question.score) else question.rule or "fail"


def discrimination(scores_by_student: Sequence[tuple[float, float]]) -> float | None:
    """(total, this question's score 0..1) per student -> upper 27 % mean minus lower 27 % mean."""
    if len(scores_by_student) < 2:
        return None
    ranked = sorted(scores_by_student, key=lambda pair: pair[0])
    size = max(1, round(UPPER_LOWER * len(ranked)))
    lower, upper = ranked[:size], ranked[-size:]
    return sum(s for _, s in upper) / size - sum(s for _, s in lower) / size


def _names(students: list[str], show_all: bool, lang: str) -> str:
    shown = students if show_all else students[:SHOWN_NAMES]
    text = ", ".join(markdown(name, 60) for name in shown)
    if len(students) > len(shown):
        text += ", " + pick(WORDS["more-names"], lang).format(n=len(students) - len(shown))
    return text


def _lab_rules(answers: list[tuple[StudentGrade, QuestionGrade]], show_all: bool, lang: str) -> list[str]:
    """A lab question: how many files passed, and each rule broken first, with who."""
    handed_in = [(g, q) for g, q in answers if q.answered]
    passed = sum(1 for _, q in handed_in if lab_outcome(q) == "pass")
    broken: dict[str, list[str]] = {}
    for grade, question in handed_in:
        outcome = lab_outcome(question)
        if outcome != "pass":
            broken.setdefault(outcome, []).append(grade.student)
    lines = [pick(WORDS["lab-passed"], lang).format(passed=passed, files=len(handed_in), total=len(answers))]
    ranked = sorted(broken.items(), key=lambda item: (-len(item[1]), item[0]))
    if ranked:
        lines += ["", pick(WORDS["lab-rules"], lang)]
    for rule, students in ranked:
        lines.append(f"- **{markdown(rule, 60)}** × {len(students)} ({_names(students, show_all, lang)})")
    return [*lines, ""]


def report_markdown(quiz: Quiz, result: ClassResult, lang: str = "en", show_all: bool = False) -> str:
    """The class report in ``lang``; counts first, names cut to a few unless ``show_all``."""
    from exercises.catalogue import get
    from exercises.grading.diagnoses import explain

    def w(key: str, **params) -> str:
        return pick(WORDS[key], lang).format(**params)

    graded = result.graded
    missing = [g.student for g in result.grades if g.status == MISSING]
    rejected = [g.student for g in result.grades if g.status == REJECTED]
    lines = [f"# {markdown(quiz.title)} ({markdown(quiz.id)})", ""]
    lines.append(
        w(
            "summary",
            graded=len(graded),
            missing=len(missing),
            conflicts=len(result.conflicts),
            rejected=len(result.rejected),
            skipped=len(result.skipped),
        )
    )
    if graded:
        points = sum(g.total for g in graded) / len(graded)
        lines.append("")
        lines.append(
            w(
                "mean",
                percent=sum(g.percent for g in graded) / len(graded),
                points=points,
                maximum=quiz.maximum,
            )
        )
    lines += [
        "",
        " · ".join(f"{pick(STATUS[status], lang)} {count}" for status, count in status_counts(result)),
    ]
    if graded:
        lines += [
            "",
            "## " + w("distribution"),
            "",
            w("distribution-note", maximum=quiz.maximum, graded=len(graded)),
        ]
        lines += ["", "```text", *bar_lines(score_bins(g.percent for g in graded)), "```"]
        lines += ["", "## " + w("per-question"), "", "```text", *question_bars(quiz, graded, lang), "```"]
    flagged: dict[str, list[str]] = {}
    for grade in graded:
        for flag in grade.flags:
            flagged.setdefault(flag, []).append(grade.student)
    if flagged:
        lines += ["", "## " + w("flags"), ""]
        for flag, students in flagged.items():
            lines.append(
                f"- **{flag}** × {len(students)}: {pick(FLAG_TEXT[flag], lang)} ({_names(students, show_all, lang)})"
            )
    lines += ["", "## " + w("questions"), "", w("table"), "| --- | --- | --- | --- | --- | --- |"]
    sections: list[str] = []
    wrong_counts = []
    for index, exercise_id in enumerate(quiz.exercises):
        lab = is_lab(exercise_id)
        exercise = None if lab else get(exercise_id)
        worth = quiz.points_of(index)
        answers = [(g, g.questions[index]) for g in graded]
        right = sum(1 for _, q in answers if full_marks(q.score))
        mean = sum(q.points for _, q in answers) / len(answers) if answers else 0.0
        index_d = discrimination([(g.total, q.score) for g, q in answers])
        shown_d = "–" if index_d is None else f"{index_d:+.2f}"
        wrong_counts.append((len(answers) - right, index, exercise_id))
        lines.append(
            f"| {index + 1} | {exercise_id} | {worth:g} | {mean:.2f} | {right}/{len(answers)} | {shown_d} |"
        )
        sections += [
            "",
            "### "
            + w(
                "question",
                n=index + 1,
                exercise=f"{exercise_id} · {markdown(pick(question_title(exercise_id), lang))}",
                points=worth,
            ),
            "",
        ]
        if answers:
            counts = answer_counts((q.score, q.answered) for _, q in answers)
            sections += [
                w("answers"),
                "",
                "```text",
                *bar_lines(answer_bins(counts, lang), 40),
                "```",
                "",
            ]
        if lab:
            sections += _lab_rules([(g, q) for g, q in answers], show_all, lang)
        if exercise is not None and exercise.kind == "choice":
            picked = Counter(q.choice or "–" for _, q in answers)
            letters = sorted(k for k in picked if k != "–") + (["–"] if "–" in picked else [])
            sections.append(w("options") + " · ".join(f"{markdown(k, 3)} {picked[k]}" for k in letters))
            sections.append("")
        who: dict[str, list[str]] = {}
        for grade, question in answers:
            for code in question.diagnoses:
                who.setdefault(code, []).append(grade.student)
        ranked = sorted(who.items(), key=lambda item: (-len(item[1]), item[0]))
        if not ranked:
            sections.append(w("no-misconceptions"))
        for code, students in ranked if show_all else ranked[:SHOWN_CODES]:
            sections.append(
                f"- **{code}** × {len(students)} — {pick(explain(code), lang)} ({w('students')}: {_names(students, show_all, lang)})"
            )
        if not show_all and len(ranked) > SHOWN_CODES:
            sections.append("- " + w("more-codes", n=len(ranked) - SHOWN_CODES))
    lines += ["", w("discrimination-note")]
    lines += sections
    lines += ["", "## " + w("most-wrong"), ""]
    worst = sorted((c for c in wrong_counts if c[0] and 2 * c[0] >= len(graded)), key=lambda c: (-c[0], c[1]))
    lines += [
        f"- {index + 1}. {exercise} : {wrong}/{len(graded)}" for wrong, index, exercise in worst[:5]
    ] or [w("none")]
    if result.conflicts:
        lines += ["", "## " + w("conflicts"), ""]
        for student, files in result.conflicts:
            lines.append(f"- {markdown(student)}: " + ", ".join(markdown(path, 120) for path in files))
    if result.rejected_text:
        lines += ["", "## " + w("rejected"), ""]
        lines += [
            f"- {markdown(path, 120)}: {markdown(pick(why, lang), 300)}" for path, why in result.rejected_text
        ]
    if result.skipped:
        lines += ["", "## " + w("skipped"), ""]
        lines += [f"- {markdown(path, 120)}" for path in result.skipped]
    if rejected:
        lines += [
            "",
            "## " + w("rejected-students") + f" ({len(rejected)})",
            "",
            _names(rejected, True, lang),
        ]
    if missing:
        lines += ["", "## " + w("missing") + f" ({len(missing)})", "", _names(missing, show_all, lang)]
    return "\n".join(lines) + "\n"


def status_counts(result: ClassResult) -> list[tuple[str, int]]:
    """How many students have each status, in STATUS order, those with none left out."""
    found = Counter(grade.status for grade in result.grades)
    return [(status, found[status]) for status in STATUS if found[status]]


def question_bars(quiz: Quiz, graded: Sequence[StudentGrade], lang: str) -> list[str]:
    """The legend, then one line per question: its number and exercise, a stacked bar of
    right / partly / wrong / not answered over the graded students, and the four counts.
    At most 80 columns (the exercise id is cut to 18)."""
    lines = [pick(LEGEND, lang)]
    for index, exercise_id in enumerate(quiz.exercises):
        counts = answer_counts((g.questions[index].score, g.questions[index].answered) for g in graded)
        name = exercise_id if len(exercise_id) <= 18 else exercise_id[:17] + "…"
        numbers = " ".join(f"{count:>3}" for count in counts)
        lines.append(f"q{index + 1:<3}{name:<18} │{stacked_bar(counts, 32)}│ {numbers}")
    return lines
