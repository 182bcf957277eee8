"""clm-shift and span-corruption: the layouts, T5's targets, fair variants, feedback
that teaches without giving the answer away, and no torch to list them."""

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exercises.catalogue import get
from exercises.items.clm_shift import read_pairs

CLM = get("clm-shift")
SPAN = get("span-corruption")


def _variant_of(exercise, predicate, seeds=range(1, 400)):
    for seed in seeds:
        variant = exercise.generate(seed)
        if predicate(variant.data):
            return variant
    pytest.fail("no such variant")


@pytest.mark.parametrize(
    ("text", "n", "pairs"),
    [
        ("0-1, 1-2, 2-3", 4, [(0, 1), (1, 2), (2, 3)]),
        ("0→1 1→2 2→3", 4, [(0, 1), (1, 2), (2, 3)]),
        ("(0,1) (1,2)", 4, [(0, 1), (1, 2)]),
        ("０－１，１－２", 4, [(0, 1), (1, 2)]),
        ("logit 0 对 标签 1，logit 1 对 标签 2", 4, [(0, 1), (1, 2)]),
        ("t -> t+1", 4, [(0, 1), (1, 2), (2, 3)]),
        ("t→t", 3, [(0, 0), (1, 1), (2, 2)]),
        ("T 对 T + 1", 3, [(0, 1), (1, 2)]),
        ("logits[:, :-1] vs labels[:, 1:]", 4, [(0, 1), (1, 2), (2, 3)]),
        ("logits[:-1] 和 labels[1:]", 3, [(0, 1), (1, 2)]),
    ],
)
def test_pairs_are_read_in_the_forms_learners_write(text, n, pairs):
    assert read_pairs(text, n) == pairs


@pytest.mark.parametrize("text", ["", "no idea", "0-1, 2", "不知道", "\x1b[31m", "9" * 5000])
def test_unreadable_pairs_are_invalid_not_wrong(text):
    variant = CLM.generate(0)
    answer = {**CLM.solve(variant), "pairs": text}
    result = CLM.grade(variant, answer)
    assert not result.valid and result.diagnoses == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_the_pairs_reader_never_raises(text):
    read_pairs(text, 8)


def test_labels_equal_inputs_is_right_loss_side_and_copying_data_side():
    loss = _variant_of(CLM, lambda d: d["layout"] == "loss")
    tokens = loss.data["tokens"]
    right = {
        "inputs": " ".join(tokens),
        "labels": " ".join(tokens),
        "pairs": "logits[:, :-1] vs labels[:, 1:]",
    }
    assert CLM.grade(loss, right).correct
    copying = {**right, "pairs": "t -> t"}
    result = CLM.grade(loss, copying)
    assert "labels-not-shifted" in result.diagnoses and result.score <= 0.5

    data = CLM.generate(0)
    assert data.data["layout"] == "data"
    copied = {**CLM.solve(data), "labels": " ".join(data.data["tokens"][:-1])}
    result = CLM.grade(data, copied)
    assert "labels-not-shifted" in result.diagnoses and result.score <= 0.5


def test_each_clm_prompt_names_its_layout():
    for seed in range(60):
        variant = CLM.generate(seed)
        word = {"data": ("DATA-SIDE", "数据端"), "loss": ("LOSS-SIDE", "损失端")}[variant.data["layout"]]
        assert word[0] in variant.prompt["en"] and word[1] in variant.prompt["zh"]
    assert {CLM.generate(seed).data["layout"] for seed in range(1, 40)} == {"data", "loss"}


def test_span_accepts_exactly_t5s_answer_with_or_without_eos():
    end = _variant_of(SPAN, lambda d: d["kind"] == "end")
    solution = SPAN.solve(end)
    assert solution["targets"].endswith("</s>") and SPAN.grade(end, solution).correct
    bare = {part: text.removesuffix(" </s>") for part, text in solution.items()}
    assert SPAN.grade(end, bare).correct
    # The seed lesson's always-closing target is not T5's here, and is told why.
    closing = f"{bare['targets']} <extra_id_{len(end.data['merged'])}>"
    result = SPAN.grade(end, {**bare, "targets": closing})
    assert not result.correct and result.diagnoses == ["target-extra-final-sentinel"]


def test_touching_spans_take_one_sentinel():
    touching = _variant_of(SPAN, lambda d: d["kind"] == "touching")
    assert len(touching.data["spans"]) == 2 and len(touching.data["merged"]) == 1
    assert (
        touching.data["inputs"].count("<extra_id_0>") == 1 and "<extra_id_1>" not in touching.data["inputs"]
    )


# Every generated variant of these two is fair: tests/test_grading.py's sweep over 3,000
# seeds of every graded exercise checks it (it was checked here a second time).


def test_unfair_variants_are_caught():
    variant = SPAN.generate(0)
    from dataclasses import replace

    assert not SPAN.variant_is_fair(replace(variant, data={**variant.data, "spans": [[0, 2]]}))
    assert not SPAN.variant_is_fair(replace(variant, data={**variant.data, "kind": "end"}))
    clm = CLM.generate(0)
    assert not CLM.variant_is_fair(replace(clm, data={**clm.data, "tokens": ["a", "a", "b"]}))


@pytest.mark.parametrize("exercise", [CLM, SPAN], ids=lambda e: e.id)
def test_a_wrong_try_marks_positions_without_printing_the_answer(exercise):
    for seed in range(40):
        variant = exercise.generate(seed)
        solution = exercise.solve(variant)
        part = exercise.parts[1].name
        tokens = solution[part].split()
        wrong = " ".join([tokens[-1], *tokens[1:-1], tokens[0]])
        if wrong == solution[part]:
            continue
        result = exercise.grade(variant, {**solution, part: wrong}).to_json("en")
        feedback = result["parts"][part]["feedback"] + result["feedback"]
        assert solution[part] not in feedback
        assert " ".join(tokens[:3]) not in feedback


def test_listing_exercises_imports_no_torch():
    code = (
        "import sys\n"
        "import exercises.items.clm_shift, exercises.items.span\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "said", ["labels = input_ids", "same as inputs", "input_ids", "和输入一样", "标签等于输入", "同输入。"]
)
def test_labels_said_in_words_are_right_loss_side_and_copying_data_side(said):
    loss = _variant_of(CLM, lambda d: d["layout"] == "loss")
    assert CLM.grade(loss, {**CLM.solve(loss), "labels": said}).correct
    data = CLM.generate(0)
    result = CLM.grade(data, {**CLM.solve(data), "labels": said})
    assert result.diagnoses == ["labels-not-shifted"] and result.score <= 0.5


@pytest.mark.parametrize(
    ("inputs", "targets"),
    [
        (
            "transformer models <extra_id_0> large text corpora </S>",
            "<extra_id_0> learn patterns from <extra_id_1> </S>",
        ),
        (
            "transformer models <extra_id_0> large text corpora <eos>",
            "<extra_id_0> learn patterns from <extra_id_1> EOS",
        ),
        (
            "transformer，models，《extra_id_0》，large，text，corpora",
            "【extra_id_0】 learn patterns from <extra id 1>",
        ),
        (
            "transformer models (<extra_id_0>) large text corpora",
            "<extra_id_0>learn patterns from<extra_id_1></s>",
        ),
        (
            "['transformer', 'models', '<extra_id_0>', 'large', 'text', 'corpora', '</s>']",
            "['<extra_id_0>', 'learn', 'patterns', 'from', '<extra_id_1>', '[EOS]']",
        ),
        (
            "transformer models <extra_id_0> large text corpora.",
            "<extra_id_0> learn patterns from <extra_id_1>。",
        ),
    ],
)
def test_span_answers_in_learners_forms_are_right(inputs, targets):
    variant = SPAN.generate(0)
    result = SPAN.grade(variant, {"inputs": inputs, "targets": targets})
    assert result.correct and result.diagnoses == [], result.to_json("en")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_span_and_clm_readers_never_raise(text):
    SPAN.grade(SPAN.generate(0), {"inputs": text, "targets": text})
    CLM.grade(CLM.generate(1), {"inputs": text, "labels": text, "pairs": text})
