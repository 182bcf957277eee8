"""Reflection: the lessons' "explain why" questions. Free text is not scored by
the machine; the learner reads the model answer and marks themselves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from exercises.grading import parsing
from exercises.grading.model import (
    AnswerOption,
    Exercise,
    GradeResult,
    Parsed,
    Part,
    PartResult,
    Rubric,
    Variant,
)
from exercises.text import Bilingual, L, pick

SELF_MARK = Part(
    "self_mark",
    L("your own mark: yes / partly / no", "自评：是 / 部分 / 否"),
    L("partly", "部分"),
    kind="self-mark",
    options=(
        AnswerOption("yes", L("y  I had it", "y  答对了"), "y"),
        AnswerOption("partly", L("p  partly", "p  部分对"), "p"),
        AnswerOption("no", L("x  I missed it", "x  没答对"), "x"),
    ),
)


@dataclass(eq=False)
class Reflection(Exercise):
    question: Bilingual = None  # type: ignore[assignment]
    model_answer: Bilingual = None  # type: ignore[assignment]
    key_points: tuple[Bilingual, ...] = ()

    def generate(self, seed: int) -> Variant:
        return Variant(self.id, seed, {}, self.question, self.question["en"])

    def question_key(self, seed: int) -> str:
        return self.question["en"]

    def pool_size(self) -> int:
        return 1

    def comparison(self) -> Bilingual:
        """The model answer and its key points: what a learner marks themself against."""
        points = {lang: "\n".join(f"- {point[lang]}" for point in self.key_points) for lang in ("en", "zh")}
        return {
            "en": f"Compare with a model answer: {self.model_answer['en']}\nKey points:\n{points['en']}",
            "zh": f"对照参考答案：{self.model_answer['zh']}\n要点：\n{points['zh']}",
        }

    def solve(self, variant: Variant) -> dict[str, str]:
        return {"answer": self.model_answer["en"]}

    def shown_solution(self, variant: Variant, lang: str) -> tuple[dict[str, str], bool]:
        """The model answer in the learner's language, written by the course (not computed)."""
        return {"answer": pick(self.model_answer, lang)}, False

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        if part == "self_mark":
            return Parsed(parsing.self_mark(text))
        cleaned = parsing.clean(text)
        return Parsed(cleaned or None)

    def grade_parts(self, variant, parsed, raw):  # not used: grade() is overridden
        return {}, []

    def grade(self, variant: Variant, answer: Mapping[str, str]) -> GradeResult:
        unknown = [name for name in answer if name not in ("answer", "self_mark")]
        if unknown:
            from exercises.grading.model import UnknownPart

            raise UnknownPart(
                f"exercise {self.id} has no part {unknown[0]!r}; its parts are answer, self_mark"
            )
        feedback = self.comparison()
        mark = (
            self.parse("self_mark", answer["self_mark"], variant).value if answer.get("self_mark") else None
        )
        written = bool(answer.get("answer", "").strip())
        return GradeResult(
            exercise=self.id,
            seed=variant.seed,
            score=mark,
            valid=written or mark is not None,
            parts={"answer": PartResult(0.0 if mark is None else mark, written, feedback)},
            diagnoses=[],
            feedback=feedback,
            graded=False,
        )


SELF_MARKED = Rubric(
    full=L(
        "Not scored by the machine: you compare with the model answer and mark yourself yes (1).",
        "不由机器评分：对照参考答案自评，“是”记 1 分。",
    ),
    partial=(L("Partly: 0.5. No: 0.", "部分：0.5 分。否：0 分。"),),
)


def reflection(
    exercise_id: str,
    title: Bilingual,
    question: Bilingual,
    model_answer: Bilingual,
    key_points: tuple[Bilingual, ...],
) -> Reflection:
    return Reflection(
        id=exercise_id,
        kind="reflection",
        title=title,
        parts=(Part("answer", L("your explanation", "你的解释"), L("free text", "自由作答")), SELF_MARK),
        from_lesson=True,
        graded=False,
        hint_texts=key_points[:1],
        rubric=SELF_MARKED,
        question=question,
        model_answer=model_answer,
        key_points=key_points,
    )


EXERCISES = (
    reflection(
        "reflect-clm-generation",
        L("Why causal LM suits open generation", "为什么因果语言建模适合开放式生成"),
        L(
            "In your own words: why is causal LM suited to open-ended generation?",
            "用你自己的话解释：为什么因果语言建模更适合开放式生成？",
        ),
        L(
            "Because training and use are the same task: during training each position predicts the next token from "
            "the past only, and generating text is exactly predicting the next token from what is written so far, so "
            "nothing learnt depends on seeing the future.",
            "因为训练和使用是同一件事：训练时每个位置只根据过去预测下一个 token，而生成文本恰恰就是根据已写出的内容预测下一个 "
            "token，学到的东西不依赖于看见未来。",
        ),
        (
            L("the model only ever sees the past (causal mask)", "模型始终只能看到过去（因果掩码）"),
            L("generation also has only the past", "生成时同样只有过去"),
            L("so there is no mismatch between training and use", "所以训练和使用之间没有错位"),
        ),
    ),
    reflection(
        "reflect-mlm-fill",
        L("Masked LM is a fill-in-the-blank exercise", "掩码语言建模是填空题"),
        L(
            "Why is masked LM more like a fill-in-the-blank exercise than a continuation exercise?",
            "为什么说掩码语言建模更像“补空题”，而不是“续写题”？",
        ),
        L(
            "The blanks sit inside the sentence and the model fills them using the words on both sides; nothing is "
            "added at the end. A continuation exercise gives only the left side and asks for what comes next.",
            "空位在句子中间，模型借助两侧的词把它补上；并没有在末尾续写任何东西。续写题只给出左边，要求写出接下来的内容。",
        ),
        (
            L("the masked positions are inside the text", "被遮盖的位置在文本中间"),
            L("both left and right context are visible", "左右两侧的上下文都可见"),
            L(
                "the output is the original token at each blank, not new text",
                "输出是每个空位上的原词，而不是新文本",
            ),
        ),
    ),
    reflection(
        "reflect-summarisation",
        L("Objective for a summariser", "摘要模型的目标"),
        L(
            "If your goal is a strong summarisation model, which kind of pretraining objective would you favour, and why?",
            "如果你的目标是做一个强摘要模型，你会更偏向哪类预训练目标？为什么？",
        ),
        L(
            "A denoising, text-to-text objective such as span corruption with an encoder-decoder: the encoder reads the "
            "whole (corrupted) input and the decoder writes a separate output, which is the shape of summarisation — "
            "read a document, write a shorter text.",
            "片段破坏这类“文本到文本”的去噪目标，配编码器-解码器：编码器读完整个（被破坏的）输入，解码器写出一段单独的输出，"
            "这正是摘要的形态——读一篇文档，写出一段更短的文本。",
        ),
        (
            L("summarisation maps an input text to an output text", "摘要是把输入文本映射成输出文本"),
            L("span corruption practises exactly that mapping", "片段破坏练的正是这种映射"),
            L("an encoder-decoder reads fully, then writes", "编码器-解码器先完整地读，再写"),
        ),
    ),
    reflection(
        "reflect-mask-rate",
        L("Too much or too little masking", "掩码率过高或过低"),
        L(
            "The lesson suggests raising mask_prob from 0.15 to 0.3. What can go wrong when the masking rate is far "
            "too high, or far too low?",
            "讲义建议把 mask_prob 从 0.15 改成 0.3。掩码率过高或过低分别可能带来什么问题？",
        ),
        L(
            "Too high: so much of the sentence is hidden that too little context is left to infer the blanks, and the "
            "inputs look ever less like real text. Too low: each sentence yields very few predictions, so learning "
            'needs far more compute and data for the same signal. Where "too high" starts is an empirical '
            "question, and 15 % is a convention rather than an optimum: Wettig et al. (2022, arXiv:2202.08005) found "
            "40 % better than 15 % for BERT-large-sized models, and even 80 % kept 95 % of the fine-tuned performance.",
            "过高：句子被遮得太多，剩下的上下文不足以推断空位，输入也越来越不像真实文本。过低：每句话只产生很少的预测，"
            "要得到同样多的训练信号就需要多得多的算力和数据。至于多高算“过高”，要靠实验回答，15% 只是惯例而不是最优值："
            "Wettig et al.（2022，arXiv:2202.08005）发现，对 BERT-large 规模的模型，遮 40% 比遮 15% 更好，"
            "遮到 80% 仍能保留 95% 的微调效果。",
        ),
        (
            L("high rate: too little context left", "掩码率高：剩下的上下文太少"),
            L("high rate: inputs drift from real text", "掩码率高：输入偏离真实文本"),
            L("low rate: few training signals per sentence", "掩码率低：每句话的训练信号很少"),
            L(
                "15 % is a convention: 40 % did better for large models (Wettig et al., 2022)",
                "15% 是惯例：对大模型，40% 效果更好（Wettig et al., 2022）",
            ),
        ),
    ),
)
