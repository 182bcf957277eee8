"""What the sources say, held in the banks, items and diagnoses (issue 32). Each test
names the source it checks against; the source is read in the test's docstring, not
typed twice in the content."""

from __future__ import annotations

from collections import Counter

from exercises.catalogue import EXERCISES, get
from exercises.grading.diagnoses import DIAGNOSES
from exercises.items.choice import LETTERS


def _option_code(exercise_id: str, seed: int, letter: str) -> list[str]:
    exercise = get(exercise_id)
    return exercise.grade(exercise.generate(seed), {"choice": letter}).diagnoses


def test_the_random_word_rule_is_the_courses_and_the_references_draw_from_the_whole_vocabulary():
    """Google's create_pretraining_data.py (``vocab_words[rng.randint(0, len(vocab_words) - 1)]``)
    and Hugging Face's DataCollatorForLanguageModeling (``torch.randint(len(self.tokenizer), ...)``)
    draw the random word from the whole vocabulary, specials included; no source says a special
    drawn there "teaches the model" anything. The course's rule is the course's."""
    for code in ("random-word-special", "random-excludes-original", "random-word-not-uniform"):
        en, zh = DIAGNOSES[code]["en"], DIAGNOSES[code]["zh"]
        assert "teach the model" not in en and "否则模型会以为" not in zh, code
        assert "course" in en and "本课程" in zh, code
    special = DIAGNOSES["random-word-special"]
    assert "whole vocabulary" in special["en"] and "整个词表" in special["zh"]
    assert (
        "BERT draws the random word from the whole non-special"
        not in DIAGNOSES["random-excludes-original"]["en"]
    )


def test_a_fixed_count_per_sequence_is_googles_convention_not_a_mistake():
    """create_pretraining_data.py: ``num_to_predict = min(max_predictions_per_seq, max(1,
    int(round(len(tokens) * masked_lm_prob))))``, a valid convention the MLM lesson shows."""
    en, zh = DIAGNOSES["selection-fixed-count"]["en"], DIAGNOSES["selection-fixed-count"]["zh"]
    assert "max(1, round(p × n))" in en and "max(1, round(p × n))" in zh
    assert "Google" in en and "Google" in zh
    assert "this task" in en and "本题" in zh


def test_the_random_share_is_noise_but_not_only_noise():
    """d2l calls the random 10 % "occasional noise"; BERT §3.1 gives the fine-tuning mismatch.
    The diagnosis says "not only noise", and no wrong option merely calls it noise."""
    en, zh = (
        DIAGNOSES["random-as-regularisation-only"]["en"],
        DIAGNOSES["random-as-regularisation-only"]["zh"],
    )
    assert "not only noise" in en and "不只是噪声" in zh
    bank = get("concept-80-10-10")
    stem = "What does the 10 % random replacement add to what the model learns?"
    question = next(q for q in bank.questions if q.stem["en"] == stem)
    for option in question.options:
        if option.code == "random-as-regularisation-only":
            assert "only" in option.text["en"] and "只" in option.text["zh"], option.text


def test_an_encoder_decoder_for_prefix_and_rest_is_not_a_misconception():
    """T5 §3.2.3 trained the prefix-LM objective on its encoder-decoder (the prefix to the
    encoder, the rest to the decoder): only the architecture T5 calls "prefix LM" (§3.2.1) is
    one decoder-only stack. No wrong option of any bank calls that encoder-decoder a mistake."""
    for exercise in EXERCISES:
        for question in getattr(exercise, "questions", ()):
            for option in question.options:
                if not option.correct:
                    assert "separate encoder for the prefix" not in option.text["en"], exercise.id
    bank = get("concept-prefix-lm")
    whys = " ".join(option.why["en"] for question in bank.questions for option in question.options)
    assert "3.2.3" in whys and "objective" in whys


def test_self_supervision_most_frequent_word_names_its_own_misconception():
    """concept-self-supervision --seed 14 (before the bank grew), choice C: the corpus' most
    frequent word after "hot" is not the target; the chain rule (tokens-independent) is not
    that story. Every seed that asks the question is checked."""
    exercise = get("concept-self-supervision")
    asked = 0
    for seed in range(200):
        variant = exercise.generate(seed)
        question = exercise.question(variant)
        if "hot [ ]" not in question.stem["en"]:
            continue
        asked += 1
        order = variant.data["order"]
        slot = next(s for s, index in enumerate(order) if "most often" in question.options[index].text["en"])
        assert _option_code("concept-self-supervision", seed, LETTERS[slot]) == ["label-is-most-frequent"]
    assert asked


def test_clm_shift_a_data_side_answer_to_a_loss_side_question_is_one_story():
    """clm-shift --seed 3 (loss-side): the data-side answer with its own rule t->t is the
    other layout, not also copying (the two stories contradict each other)."""
    exercise = get("clm-shift")
    variant = exercise.generate(3)
    assert variant.data["layout"] == "loss"
    tokens = variant.data["tokens"]
    for pairs in ("t->t", "logit t 对 标签 t", "0-0, 1-1, 2-2, 3-3, 4-4, 5-5"):
        answer = {"inputs": " ".join(tokens[:-1]), "labels": " ".join(tokens[1:]), "pairs": pairs}
        result = exercise.grade(variant, answer)
        assert result.diagnoses == ["wrong-layout"], (pairs, result.diagnoses)


def test_no_two_exercises_share_a_title():
    for lang in ("en", "zh"):
        titles = Counter(exercise.title[lang] for exercise in EXERCISES)
        assert [title for title, count in titles.items() if count > 1] == [], lang


def test_the_three_masks_prompt_says_each_selected_position_once_in_a_sentence():
    """The prompt named "positions 1 (self) kept unchanged; 3 (builds) → [MASK]": garbled."""
    exercise = get("three-masks")
    for seed in range(20):
        prompt = exercise.generate(seed).prompt
        assert "selected positions" not in prompt["en"] and "选中了位置" not in prompt["zh"]


def test_mlm_abcde_states_a_rate_only_in_the_lessons_own_question():
    """The rate plays no role once the selection is given: only seed 0 (the lesson's own
    question, seed 000 line 340, "掩码概率为 20%") keeps it."""
    exercise = get("mlm-abcde")
    assert "20%" in exercise.generate(0).prompt["zh"]
    for seed in range(1, 30):
        variant = exercise.generate(seed)
        assert "probability" not in variant.prompt["en"] and "概率" not in variant.prompt["zh"], seed
        assert "p" not in variant.data


NEW_CODES = (
    "teacher-forcing-one-position",
    "perplexity-across-tokenizers",
    "bidirectional-sees-itself",
    "static-dynamic-masking",
    "mlm-signal-every-token",
    "cls-trained-only-by-nsp",
    "padding-side-generation",
    "too-good-loss-trusted",
    "label-is-most-frequent",
    "visible-reversed",
)


def test_the_misconceptions_students_bring_are_named_and_asked():
    """Issue 32's list (teacher forcing, perplexity across tokenizers, BERT §3.1's "see
    itself", static vs dynamic masking, the 15 % signal, [CLS] and NSP, padding side, a loss
    too good to be true): each has a code, in both languages, and a question whose wrong
    option names it (visible-reversed is the visibility exercise's, held by the sweep)."""
    named = {
        option.code
        for exercise in EXERCISES
        for question in getattr(exercise, "questions", ())
        for option in question.options
    }
    for code in NEW_CODES:
        assert DIAGNOSES[code]["en"] and DIAGNOSES[code]["zh"], code
        assert code in named or code == "visible-reversed", code


def test_the_mlm_signal_question_counts_from_the_engines_rate():
    """The 77 of "about 77, the selected 15 %" is round(512 × MASK_RATE), the engine's rate."""
    from engine.settings import MASK_RATE

    bank = get("concept-80-10-10")
    question = next(q for q in bank.questions if "512-token" in q.stem["en"])
    right = next(option for option in question.options if option.correct)
    assert f"about {round(512 * MASK_RATE)}" in right.text["en"]
    assert f"大约 {round(512 * MASK_RATE)} 个" in right.text["zh"]
    masked = next(option for option in question.options if option.code == "loss-omits-random")
    assert f"about {round(512 * MASK_RATE * 0.8)}" in masked.text["en"]


def test_which_objective_counts_the_predictions_each_objective_trains():
    """Issue 32: "how many positions does one forward pass train: CLM, MLM, T5?", computed
    from the engine's own samples: a causal LM T-1 (every input position), a masked LM its
    selected positions, a prefix LM from the last prefix position on, T5 every target token."""
    exercise = get("which-objective")
    seen = set()
    for seed in range(80):
        data = exercise.generate(seed).data
        seen.add(data["objective"])
        labelled = sum(label != "-100" for label in data["labels"])
        if data["objective"] == "clm":
            assert data["trained"] == len(data["inputs"]) == labelled
        elif data["objective"] == "span":
            assert data["trained"] == len(data["labels"]) and data["labels"][-1] == "</s>"
        else:
            assert data["trained"] == labelled < len(data["inputs"])
    assert seen == {"clm", "mlm", "span", "prefix"}
