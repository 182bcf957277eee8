"""clm-shift and span-corruption: the layouts, T5's targets, fair variants, feedback
that teaches without giving the answer away, and no torch to list them."""

import contextlib
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


# ---------------------------------------------------------------- issue 24/25: content as data, variants


def test_every_concept_bank_file_is_loaded_from_package_data():
    from importlib import resources

    from exercises.items.concepts import EXERCISES as BANKS
    from exercises.items.concepts import FOLDER

    files = [
        entry.name
        for entry in (resources.files("exercises") / FOLDER).iterdir()
        if entry.name.endswith(".toml")
    ]
    assert len(files) == len(BANKS) == 7
    assert {bank.id for bank in BANKS} == {f"concept-{name.removesuffix('.toml')}" for name in files}


GOOD_BANK = """
id = "concept-x"
title.en = "X"
title.zh = "甲"

[[question]]
en = "q?"
zh = "问？"

[[question.hint]]
en = "h"
zh = "提示"

[[question.option]]
right = true
en = "a"
zh = "甲"

[[question.option]]
en = "b"
zh = "乙"
why.en = "no"
why.zh = "不"
misconception = "objectives-ranked"
"""


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda text: text.replace('zh = "乙"\n', ""), "question 0 option 1"),  # a language missing
        (lambda text: text.replace('misconception = "objectives-ranked"\n', ""), "question 0 option 1"),
        (
            lambda text: text.replace("right = true\n", 'right = true\nmisconception = "x"\n'),
            "question 0 option 0",
        ),
        (lambda text: text.replace('why.en = "no"\nwhy.zh = "不"\n', ""), "question 0 option 1"),
        (lambda text: text.replace('en = "h"', 'en = "h"\nextra = 1'), "question 0 hint 0"),
        (lambda text: text.replace("[[question.option]]", "[[question.options]]", 1), "question 0"),
        (lambda text: text + "\n[[question", "not TOML"),
        (lambda text: text.replace('id = "concept-x"', "id = 3"), "want an id"),
    ],
)
def test_a_malformed_bank_names_its_file_and_place(change, named):
    from exercises.items.concepts import BankError, parse_bank

    bank = parse_bank(GOOD_BANK, "concepts/x.toml")
    assert bank.id == "concept-x" and bank.questions[0].hints[0]["zh"] == "提示"
    with pytest.raises(BankError) as error:
        parse_bank(change(GOOD_BANK), "concepts/x.toml")
    assert "concepts/x.toml" in str(error.value) and named in str(error.value)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_reading_a_bank_fails_only_with_a_bank_error(text):
    from exercises.items.concepts import BankError, parse_bank

    with contextlib.suppress(BankError):
        parse_bank(text, "x.toml")


THREE = get("three-masks")


def test_three_masks_names_every_fate_and_its_loss_is_not_the_mask_positions():
    for seed in range(200):
        variant = THREE.generate(seed)
        data = variant.data
        assert (
            "No other position was selected" in variant.prompt["en"]
            and "其他位置都没有被选中" in variant.prompt["zh"]
        )
        for position, fate in zip(data["selected"], data["fates"], strict=True):
            said = {
                "mask": "replaced by [MASK]",
                "random": "replaced by the random token",
                "keep": "kept unchanged",
            }
            assert f"{position} ({data['tokens'][position]}), {said[fate]}" in variant.prompt["en"], seed
        masked = [i for i, token in enumerate(data["inputs"]) if token == "[MASK]"]
        assert masked != data["loss_positions"] and set(masked) < set(data["loss_positions"])


def test_three_masks_answering_only_the_mask_positions_is_the_named_confusion():
    for seed in range(30):
        variant = THREE.generate(seed)
        masked = [i for i, token in enumerate(variant.data["inputs"]) if token == "[MASK]"]
        result = THREE.grade(variant, {**THREE.solve(variant), "loss_positions": ", ".join(map(str, masked))})
        assert result.score <= 0.5 and {"loss-omits-random", "loss-omits-kept"} & set(result.diagnoses), seed


@pytest.mark.parametrize(
    ("exercise_id", "seed"),
    [
        ("span-corruption", 2),
        ("span-corruption", 4),
        ("three-masks", 2),
        ("three-masks", 3),
        ("three-masks", 7),
    ],
)
def test_english_prompts_over_chinese_sentences_say_why(exercise_id, seed):
    """Issue 23 item 23 named these seeds: Chinese sentences served in English mode."""
    from exercises.items.banks import CHINESE_MATERIAL_NOTE, is_chinese

    variant = get(exercise_id).generate(seed)
    if is_chinese(variant.data["tokens"]):
        assert CHINESE_MATERIAL_NOTE in variant.prompt["en"]
        assert CHINESE_MATERIAL_NOTE not in variant.prompt["zh"]
    else:
        assert CHINESE_MATERIAL_NOTE not in variant.prompt["en"]


def test_prefix_lm_labels_teaches_plain_text_cut_at_random_too():
    exercise = get("prefix-lm-labels")
    kinds = {exercise.generate(seed).data.get("kind") for seed in range(1, 60)}
    assert kinds == {"pair", "plain"}
    assert exercise.generate(0).data["kind"] == "pair"  # the lesson's kind of question
    plain = next(
        exercise.generate(seed) for seed in range(1, 60) if exercise.generate(seed).data["kind"] == "plain"
    )
    assert "cut at a random point" in plain.prompt["en"] and "随机的位置切开" in plain.prompt["zh"]
    prefix = plain.data["prefix"]
    assert plain.data["loss_positions"][0] == prefix - 1  # the last prefix position predicts first


def test_random_prefix_length_is_t5s_uniform_cut():
    import collections

    import torch

    from engine.prefix_lm import random_prefix_length

    generator = torch.Generator().manual_seed(0)
    cuts = collections.Counter(random_prefix_length(6, generator) for _ in range(5000))
    assert set(cuts) == {1, 2, 3, 4, 5}
    assert all(abs(count / 5000 - 0.2) < 0.03 for count in cuts.values())


def test_a_reflections_solution_is_the_model_answer_in_the_learners_language(capsys):
    from tui.cli import main

    assert main(["--lang", "zh", "exercise", "reflect-clm-generation", "--seed", "0", "--solution"]) == 0
    out = capsys.readouterr().out
    assert "由课程编写" in out and "由引擎计算" not in out and "Because training" not in out
    assert main(["--lang", "en", "exercise", "perplexity", "--seed", "0", "--solution", "--json"]) == 0
    assert '"solution_source": "engine"' in capsys.readouterr().out
