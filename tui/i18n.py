"""The words the command line and the app speak, in English and Chinese.

Engine errors carry a stable code; ``error_text`` turns one into the learner's
language, falling back to the engine's English sentence.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

LANGUAGES = ("zh", "en")


def detect_language(environ: Mapping[str, str] | None = None) -> str:
    """zh when the locale says Chinese, else en (OBJECTIVES_TUTOR_LANG wins)."""
    env = os.environ if environ is None else environ
    explicit = env.get("OBJECTIVES_TUTOR_LANG", "").strip().lower()
    if explicit in LANGUAGES:
        return explicit
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


MESSAGES: dict[str, dict[str, str]] = {
    "error": {"en": "error", "zh": "错误"},
    "internal-error": {
        "en": "unexpected internal error ({detail}); please report it",
        "zh": "意外的内部错误（{detail}），请报告给我们",
    },
    "position": {"en": "pos", "zh": "位置"},
    "token": {"en": "token", "zh": "词元"},
    "input": {"en": "input", "zh": "输入"},
    "label": {"en": "label", "zh": "标签"},
    "selected": {"en": "selected", "zh": "选中"},
    "fate": {"en": "fate", "zh": "命运"},
    "target": {"en": "target", "zh": "目标"},
    "fate-mask": {"en": "[MASK]", "zh": "[MASK]"},
    "fate-random": {"en": "random", "zh": "随机词"},
    "fate-keep": {"en": "kept", "zh": "不变"},
    "no-loss": {"en": "-", "zh": "-"},
    "special": {"en": "special, never selected", "zh": "特殊符号，从不选中"},
    "mask-title-causal": {
        "en": "Causal mask (rows: query, columns: key; 1 = blocked, 0 = may look)",
        "zh": "因果掩码（行：查询位置，列：键位置；1 = 被遮盖，0 = 可以看）",
    },
    "mask-title-bidirectional": {
        "en": "Bidirectional mask (rows: query, columns: key; 1 = blocked, 0 = may look)",
        "zh": "双向掩码（行：查询位置，列：键位置；1 = 被遮盖，0 = 可以看）",
    },
    "mask-title-prefix": {
        "en": "Prefix-LM mask, prefix {prefix} (rows: query, columns: key; 1 = blocked, 0 = may look)",
        "zh": "前缀 LM 掩码，前缀长度 {prefix}（行：查询位置，列：键位置；1 = 被遮盖，0 = 可以看）",
    },
    "columns-block": {"en": "columns {first}-{last}:", "zh": "第 {first}-{last} 列："},
    "too-large": {
        "en": "{n} positions are too many to draw usefully here (at most {cap}); use --json for the full matrix",
        "zh": "{n} 个位置太多，这里画不清楚（最多 {cap} 个）；完整矩阵请用 --json",
    },
    "sees": {"en": "position {i} sees {visible}", "zh": "位置 {i} 能看到 {visible}"},
    "clm-heading": {
        "en": "Causal LM: each input position predicts the next token",
        "zh": "因果语言建模：每个输入位置预测下一个 token",
    },
    "mlm-heading": {
        "en": "Masked LM (p = {p}): selected positions enter the loss with their original token",
        "zh": "掩码语言建模（p = {p}）：被选中的位置以原始词为标签参与损失",
    },
    "mlm-counts": {
        "en": "selected {total}: [MASK] {mask}, random {random}, kept {keep}",
        "zh": "共选中 {total} 个：[MASK] {mask} 个，随机词 {random} 个，保持不变 {keep} 个",
    },
    "span-heading": {"en": "Span corruption (T5): spans {spans}", "zh": "片段破坏（T5）：片段 {spans}"},
    "span-inputs": {"en": "inputs :", "zh": "输入 ："},
    "span-targets": {"en": "targets:", "zh": "目标 ："},
    "prefix-heading": {
        "en": "Prefix LM, prefix {prefix}: the prefix is read both ways, only the rest is predicted",
        "zh": "前缀 LM，前缀长度 {prefix}：前缀双向可见，只预测其后的部分",
    },
    "tb-clm-ids": {"en": "input token ids (shape: {shape}):", "zh": "输入 token ids（形状：{shape}）："},
    "tb-clm-loss": {"en": "CLM loss: {loss}", "zh": "CLM 损失值：{loss}"},
    "tb-clm-baseline": {
        "en": "untrained baseline ln({V}) = {baseline}\nwithout the 1/sqrt({d}) scaling the loss is {unscaled}",
        "zh": "未训练基线 ln({V}) = {baseline}\n若投影层不按 1/sqrt({d}) 缩放，损失变为 {unscaled}",
    },
    "tb-clm-mask": {
        "en": "causal attention mask (1 = blocked: may not look at the future):",
        "zh": "因果注意力掩码（1 表示被遮盖，即不能看未来）：",
    },
    "tb-mlm-original": {"en": "original token ids:", "zh": "原始输入 token ids："},
    "tb-mlm-selected": {"en": "selected positions (1 = selected):", "zh": "候选掩盖位置（1 表示被选中）："},
    "tb-mlm-inputs": {"en": "final input token ids:", "zh": "最终输入 token ids："},
    "tb-mlm-labels": {
        "en": "MLM labels (-100 = not in the loss):",
        "zh": "MLM 标签（-100 表示该位置不参与损失）：",
    },
    "tb-mlm-total": {"en": "selected {total} tokens in all.", "zh": "统计：共选中 {total} 个候选 token。"},
    "tb-mlm-mask": {"en": "  [MASK]: {n} ({pct}%)", "zh": "  [MASK] 替换：{n}（{pct}%）"},
    "tb-mlm-random": {"en": "  random: {n} ({pct}%)", "zh": "  随机词替换：{n}（{pct}%）"},
    "tb-mlm-keep": {"en": "  kept:   {n} ({pct}%)", "zh": "  保持不变：{n}（{pct}%）"},
    "tb-vis-length": {"en": "sequence length: {n}", "zh": "序列长度：{n}"},
    "tb-vis-causal": {
        "en": "causal mask (CLM), rows: query, columns: key, 1 = blocked:",
        "zh": "因果掩码（CLM），行：查询位置，列：键位置，1 = 被遮盖：",
    },
    "tb-vis-full": {
        "en": "full mask (MLM), every position sees every position:",
        "zh": "全连接掩码（MLM），所有位置互相可见：",
    },
    "tb-vis-causal-sees": {"en": "under CLM position i sees [0, i]:", "zh": "CLM 下，位置 i 能看到 [0, i]："},
    "tb-vis-full-sees": {
        "en": "under MLM position i sees everything:",
        "zh": "MLM 下，位置 i 能看到全部位置：",
    },
    "tb-vis-row": {"en": "  position {i}: {visible}", "zh": "  位置 {i}：{visible}"},
    "objective": {"en": "objective", "zh": "目标"},
    "title": {"en": "title", "zh": "标题"},
    "self-marked": {"en": "self-marked", "zh": "自评"},
    "solution": {"en": "Solution (computed by the engine):", "zh": "参考答案（由引擎计算）："},
    "score": {"en": "score", "zh": "得分"},
    "for-example": {"en": "e.g.", "zh": "例如"},
    # The app
    "app-title": {"en": "objectives-tutor", "zh": "预训练目标导师"},
    "app-subtitle": {"en": "how language models are pretrained", "zh": "语言模型是怎样预训练的"},
    "home-heading": {"en": "Lessons", "zh": "课程"},
    "home-intro": {
        "en": "Pick a lesson (↑/↓, Enter). Each has its text, a live figure computed by the torch engine, and exercises.",
        "zh": "选择一课（↑/↓，回车）。每课都有讲解、由 torch 引擎实时计算的图，以及练习。",
    },
    "continue": {"en": "Continue: {title}", "zh": "继续上次：{title}"},
    "progress": {"en": "{done}/{total} solved", "zh": "已做对 {done}/{total}"},
    "progress-mastered": {"en": " · {mastered} mastered", "zh": " · 掌握 {mastered}"},
    "home-review": {
        "en": "Review: {n} due (mistakes come back as new variants)",
        "zh": "复习：{n} 题到期（错题以新变体回来）",
    },
    "home-review-none": {"en": "Review: nothing due", "zh": "复习：暂无到期"},
    "home-history": {"en": "History of attempts", "zh": "答题记录"},
    "home-settings": {"en": "Settings: language, theme, hints", "zh": "设置：语言、主题、提示"},
    "review-title": {"en": "Review", "zh": "复习"},
    "review-empty": {
        "en": "Nothing is due. Exercises you get wrong come back after 1 day, then 3, then 7 days.",
        "zh": "暂无到期的题。做错的题会在 1 天后回来，之后是 3 天、7 天。",
    },
    "review-line": {
        "en": "{exercise} — missed {misses}×, due {when}{last}",
        "zh": "{exercise} —— 错过 {misses} 次，{when}到期{last}",
    },
    "review-last": {"en": "; last time: {code}", "zh": "；上次：{code}"},
    "review-due-now": {"en": "now", "zh": "现在"},
    "review-due-in": {"en": "in {days:.1f} days", "zh": "{days:.1f} 天后"},
    "history-title": {"en": "History", "zh": "答题记录"},
    "history-empty": {"en": "No attempts yet.", "zh": "还没有答题记录。"},
    "history-when": {"en": "when", "zh": "时间"},
    "history-exercise": {"en": "exercise", "zh": "练习"},
    "history-score": {"en": "score", "zh": "得分"},
    "history-misconception": {"en": "misconception", "zh": "误区"},
    "settings-title": {"en": "Settings", "zh": "设置"},
    "history-attempts": {"en": "attempts", "zh": "作答次数"},
    "history-solved": {"en": "solved", "zh": "做对"},
    "history-mastered": {"en": "mastered", "zh": "掌握"},
    "history-due": {"en": "due", "zh": "待复习"},
    "progress-store": {"en": "progress file: {path}", "zh": "进度文件：{path}"},
    "reset-confirm": {
        "en": "Erase all progress in {path}? A backup copy is kept. Type yes to go on: ",
        "zh": "清空 {path} 中的全部进度？会保留一份备份。输入 yes 继续：",
    },
    "reset-kept": {"en": "Nothing erased.", "zh": "未清空任何内容。"},
    "reset-nothing": {"en": "There is no progress to erase.", "zh": "没有可清空的进度。"},
    "reset-done": {"en": "Progress erased; the backup is {backup}", "zh": "进度已清空；备份在 {backup}"},
    "recorded": {"en": "recorded in {path}", "zh": "已记录到 {path}"},
    "not-recorded": {"en": "not recorded: {why}", "zh": "未记录：{why}"},
    "settings-language": {"en": "Language", "zh": "语言"},
    "settings-theme": {"en": "Theme", "zh": "主题"},
    "settings-hints": {"en": "Hints", "zh": "提示"},
    "hints-always": {"en": "always available", "zh": "随时可用"},
    "hints-after-first-try": {"en": "only after a first try", "zh": "先作答一次后才可用"},
    "hints-never": {"en": "off (exam practice)", "zh": "关闭（模拟考试）"},
    "hints-locked": {
        "en": "Hints come after a first try (see Settings).",
        "zh": "先作答一次才能看提示（见设置）。",
    },
    "hints-off": {"en": "Hints are off (see Settings).", "zh": "提示已关闭（见设置）。"},
    "settings-saved": {"en": "Saved.", "zh": "已保存。"},
    "not-saving": {"en": "not saving: {why}", "zh": "未保存：{why}"},
    "engine-loading": {"en": "loading the torch engine…", "zh": "正在加载 torch 引擎……"},
    "engine-ready": {"en": "engine ready", "zh": "引擎已就绪"},
    "engine-failed": {"en": "the engine failed to load: {error}", "zh": "引擎加载失败：{error}"},
    "tab-lesson": {"en": "Lesson", "zh": "讲解"},
    "tab-figure": {"en": "Live figure", "zh": "实时图"},
    "tab-practice": {"en": "Practice", "zh": "练习"},
    "no-figure": {
        "en": "This lesson has no live figure: read it, then practise.",
        "zh": "这一课没有实时图：读完后直接练习。",
    },
    "too-small": {
        "en": "The window is {width}×{height}; objectives-tutor needs at least {min_width}×{min_height}. Please enlarge it.",
        "zh": "窗口大小为 {width}×{height}；至少需要 {min_width}×{min_height}。请把窗口调大。",
    },
    "key-quit": {"en": "Quit", "zh": "退出"},
    "key-help": {"en": "Help", "zh": "帮助"},
    "key-language": {"en": "中文", "zh": "English"},
    "key-back": {"en": "Back", "zh": "返回"},
    "key-hint": {"en": "Hint", "zh": "提示"},
    "key-solution": {"en": "Solution", "zh": "答案"},
    "key-new": {"en": "New variant", "zh": "换一题"},
    "key-check": {"en": "Check", "zh": "提交"},
    "key-toggle": {"en": "Toggle", "zh": "切换"},
    "key-resample": {"en": "Resample", "zh": "重新抽样"},
    "key-palette": {"en": "Commands", "zh": "命令"},
    "exercise-pick": {"en": "Exercise", "zh": "练习"},
    "variant": {"en": "variant {seed}", "zh": "变体 {seed}"},
    "hint-n": {"en": "Hint {n}/{total}: {text}", "zh": "提示 {n}/{total}：{text}"},
    "no-more-hints": {
        "en": "No more hints: try the solution (s).",
        "zh": "没有更多提示了：可以看答案（s）。",
    },
    "solution-shown": {"en": "Solution (from the engine):", "zh": "参考答案（由引擎计算）："},
    "answer-enter": {
        "en": "Enter moves to the next part and checks when all are filled. Esc, then h hint · s solution · n new.",
        "zh": "回车跳到下一项，全部填完后提交。按 Esc 后：h 提示 · s 答案 · n 换一题。",
    },
    "matrix-help": {
        "en": "Arrows move, Space toggles a cell (1 = blocked), Enter checks. Mouse clicks toggle too.",
        "zh": "方向键移动，空格切换格子（1 = 被遮盖），回车提交。鼠标点击也能切换。",
    },
    "self-mark": {
        "en": "Write your explanation, press Enter, then mark yourself against the model answer.",
        "zh": "写下你的解释，按回车，然后对照参考答案给自己打分。",
    },
    "mark-yes": {"en": "I had it", "zh": "答对了"},
    "mark-partly": {"en": "partly", "zh": "部分对"},
    "mark-no": {"en": "I missed it", "zh": "没答对"},
    "reflect-first": {"en": "Write your explanation first.", "zh": "请先写下你的解释。"},
    "choice-help": {
        "en": "Type the letter, or pick with the arrows and Enter.",
        "zh": "输入选项字母，或用方向键选择后回车。",
    },
    "self-marked-as": {"en": "You marked yourself: {mark}", "zh": "你的自评：{mark}"},
    "waiting-engine": {"en": "Waiting for the engine…", "zh": "等待引擎……"},
    "fig-length": {"en": "length", "zh": "长度"},
    "fig-sentence": {"en": "sentence", "zh": "句子"},
    "fig-clm-keys": {
        "en": "-/+ length · d toggles the 1/sqrt(d) scaling · r new seed",
        "zh": "-/+ 调长度 · d 切换 1/sqrt(d) 缩放 · r 换随机种子",
    },
    "fig-clm-loss": {
        "en": "loss {loss:.4f}  vs  ln V = {baseline:.4f} (V = {V})  →  {verdict}",
        "zh": "损失 {loss:.4f}  对比  ln V = {baseline:.4f}（V = {V}）→  {verdict}",
    },
    "fig-clm-ok": {"en": "about right for an untrained model", "zh": "对未训练的模型来说正常"},
    "fig-clm-bad": {
        "en": "far too high: softmax saturated (no 1/sqrt(d) scaling)",
        "zh": "远远偏高：softmax 已饱和（没有按 1/sqrt(d) 缩放）",
    },
    "fig-scaling-on": {"en": "projection scaled by 1/sqrt({d})", "zh": "投影层按 1/sqrt({d}) 缩放"},
    "fig-scaling-off": {"en": "projection NOT scaled", "zh": "投影层没有缩放"},
    "fig-mlm-keys": {
        "en": "-/+ p · [ ] batch for the counts · r resample · w [CLS]…[SEP] · type a sentence",
        "zh": "-/+ 调 p · [ ] 调批次大小 · r 重新抽样 · w 加 [CLS]…[SEP] · 可输入自己的句子",
    },
    "fig-mlm-counts": {
        "en": "the lesson's run, seed {seed}, batch {batch}×{length}, p = {p:.2f}: selected {total} → [MASK] {mask} ({mp}), random {random} ({rp}), kept {keep} ({kp})",
        "zh": "讲义的实验，种子 {seed}，批次 {batch}×{length}，p = {p:.2f}：选中 {total} 个 → [MASK] {mask}（{mp}），随机词 {random}（{rp}），不变 {keep}（{kp}）",
    },
    "fig-vis-keys": {
        "en": "c causal · b bidirectional · p prefix · -/+ length · [ ] prefix · ↑/↓ row",
        "zh": "c 因果 · b 双向 · p 前缀 · -/+ 长度 · [ ] 前缀长度 · ↑/↓ 选行",
    },
    "fig-prefix-keys": {
        "en": "[ ] prefix length · type a sentence",
        "zh": "[ ] 调前缀长度 · 可输入自己的句子",
    },
    "fig-span-keys": {
        "en": "type a sentence and spans (2:5,7:8); clear the spans for T5's random ones: -/+ density · [ ] mean span · r resample. With one span, T5 always puts it last.",
        "zh": "输入句子和片段（2:5,7:8）；清空片段则用 T5 的随机片段：-/+ 噪声比例 · [ ] 平均长度 · r 重新抽样。只有一个片段时，T5 总把它放在最后。",
    },
    "fig-samples-keys": {
        "en": "type your own sentence: all three samples follow",
        "zh": "输入你自己的句子：三种样本同步更新",
    },
    "fig-spans": {"en": "spans", "zh": "片段"},
    "samples-causal-inputs": {"en": "causal inputs :", "zh": "因果 LM 输入："},
    "samples-causal-labels": {"en": "causal labels :", "zh": "因果 LM 标签："},
    "samples-masked-inputs": {"en": "masked inputs :", "zh": "掩码 LM 输入："},
    "samples-masked-labels": {"en": "masked labels :", "zh": "掩码 LM 标签："},
    "samples-span-inputs": {"en": "span inputs   :", "zh": "片段破坏输入："},
    "samples-span-target": {"en": "span target   :", "zh": "片段破坏目标："},
    "fig-span-params": {
        "en": "random spans: density {density:.2f} · mean span {mean:g} · seed {seed}",
        "zh": "随机片段：噪声比例 {density:.2f} · 平均长度 {mean:g} · 种子 {seed}",
    },
    "fig-span-bad": {
        "en": "Spans look like 2:5,7:8 (start:end, end excluded).",
        "zh": "片段的写法如 2:5,7:8（起点:终点，终点不含）。",
    },
    "fig-clm-rows": {"en": "batch row {row}: ", "zh": "第 {row} 行："},
    "fig-mask-legend": {"en": "1 = blocked, 0 = may look", "zh": "1 = 被遮盖，0 = 可以看"},
    "loss-here": {"en": "in the loss", "zh": "计入损失"},
    "matrix-cap": {
        "en": "{n} positions: too many to draw usefully (at most {cap}). Shorten the sequence.",
        "zh": "{n} 个位置：太多了，画不清楚（最多 {cap} 个）。请缩短序列。",
    },
    "help-title": {"en": "Help", "zh": "帮助"},
    "exam-question": {"en": "Question {n} of {total}", "zh": "第 {n} 题，共 {total} 题"},
    "exam-left": {
        "en": "{student} · {minutes}:{seconds:02d} left",
        "zh": "{student} · 剩余 {minutes}:{seconds:02d}",
    },
    "exam-no-limit": {"en": "{student} · no time limit", "zh": "{student} · 不限时"},
    "exam-help": {
        "en": "Answers are saved as you type. No feedback until you submit. Enter: next part · PgDn/PgUp: next/previous question",
        "zh": "答案随输随存。提交前没有反馈。回车：下一项 · PgDn/PgUp：下一题/上一题",
    },
    "exam-prev": {"en": "Previous", "zh": "上一题"},
    "exam-next": {"en": "Next", "zh": "下一题"},
    "exam-submit": {"en": "Submit", "zh": "提交试卷"},
    "exam-confirm": {
        "en": "{answered} of {total} questions answered. Press Submit again to hand in; you cannot change answers afterwards.",
        "zh": "已作答 {answered}/{total} 题。再按一次“提交试卷”即交卷；交卷后不能再修改。",
    },
    "exam-time-up": {"en": "Time is up: your answers were submitted.", "zh": "时间到：答案已自动提交。"},
    "exam-submitted": {"en": "Submitted: {path}", "zh": "已提交：{path}"},
    "exam-results": {
        "en": "Your results: {total:.2f} of {count} ({percent:.0f}%)",
        "zh": "你的成绩：{total:.2f} / {count}（{percent:.0f}%）",
    },
    "exam-unanswered": {"en": "not answered", "zh": "未作答"},
    "exam-done": {"en": "submitted ✓", "zh": "已交卷 ✓"},
    "not-graded": {
        "en": "Not graded by the machine: compare with the model answer and mark yourself (--answer self_mark=yes|partly|no).",
        "zh": "此题不由机器评分：请对照参考答案自评（--answer self_mark=是|部分|否）。",
    },
    # -- the code lab (h6, issue 13) --------------------------------------------
    "lab-title": {"en": "Code lab", "zh": "代码实验"},
    "lab-progress": {"en": "{done} of {total} done", "zh": "已完成 {done} / {total}"},
    "lab-status-pass": {"en": "passed", "zh": "通过"},
    "lab-status-fail": {"en": "not yet: a rule is broken", "zh": "还没通过：有一条规则不满足"},
    "lab-status-not-started": {"en": "not written yet", "zh": "还没有写"},
    "lab-status-invalid": {"en": "cannot be run", "zh": "无法运行"},
    "lab-status-stopped": {"en": "stopped", "zh": "已被终止"},
    "lab-rule": {"en": "Rule {code}", "zh": "规则 {code}"},
    "lab-input": {"en": "input (smallest found)", "zh": "输入（找到的最小例子）"},
    "lab-yours": {"en": "your output", "zh": "你的输出"},
    "lab-required": {"en": "the rule requires", "zh": "规则要求"},
    "lab-misconception": {"en": "Misconception {code}: {text}", "zh": "常见误区 {code}：{text}"},
    "lab-exact": {
        "en": "Identical to the engine's output, draw for draw.",
        "zh": "与引擎的输出逐次抽样完全一致。",
    },
    "lab-not-exact": {
        "en": "Right, with another draw order than the engine's (that is allowed).",
        "zh": "正确；抽样顺序与引擎不同（这是允许的）。",
    },
    "lab-printed": {"en": "your code printed:", "zh": "你的代码打印了："},
    "lab-line": {"en": "line {line}", "zh": "第 {line} 行"},
    "lab-seconds": {"en": "{seconds:.1f} s, {calls} calls", "zh": "{seconds:.1f} 秒，调用 {calls} 次"},
    "lab-init-created": {"en": "wrote {n} files in {dir}", "zh": "已在 {dir} 写入 {n} 个文件"},
    "lab-init-kept": {
        "en": "kept {n} existing files untouched (init never overwrites)",
        "zh": "保留了 {n} 个已有文件（init 从不覆盖）",
    },
    "lab-init-next": {
        "en": "next: open {file} in your editor, then run `objectives-tutor lab watch {dir}`",
        "zh": "下一步：用编辑器打开 {file}，然后运行 `objectives-tutor lab watch {dir}`",
    },
    "lab-no-workspace": {
        "en": "no lab files in {dir}: run `objectives-tutor lab init {dir}` first",
        "zh": "{dir} 中没有实验文件：请先运行 `objectives-tutor lab init {dir}`",
    },
    "lab-unknown-task": {
        "en": "unknown task {task!r}; the tasks are {ids}",
        "zh": "没有名为 {task!r} 的题目；题目有 {ids}",
    },
    "lab-missing-file": {
        "en": "{file} is not in {dir}; `objectives-tutor lab init {dir}` writes the missing files",
        "zh": "{dir} 中没有 {file}；`objectives-tutor lab init {dir}` 会补上缺少的文件",
    },
    "lab-watching": {
        "en": "watching {dir}: save a file to check it again (Ctrl+C stops)",
        "zh": "正在监视 {dir}：保存文件即重新检查（Ctrl+C 停止）",
    },
    "lab-current": {"en": "Current task: {file}", "zh": "当前题目：{file}"},
    "lab-all-done": {"en": "Every task passes. Well done!", "zh": "所有题目都通过了，干得好！"},
    "lab-hint": {"en": "Hint {i} of {n}: {text}", "zh": "提示 {i} / {n}：{text}"},
    "lab-no-hints-left": {"en": "No more hints for this task.", "zh": "这道题没有更多提示了。"},
    "lab-solution-locked": {
        "en": "The reference solution opens after your first attempt: write something and check {task} once.",
        "zh": "参考答案在你第一次尝试之后开放：先写点代码并检查一次 {task}。",
    },
    "lab-not-saved": {"en": "lab run not saved: {why}", "zh": "实验记录未保存：{why}"},
    "lab-checking": {"en": "checking {file} …", "zh": "正在检查 {file} …"},
    "lab-open-hint": {
        "en": "Code lab: write this lesson in torch ({tasks}). Press F8.",
        "zh": "代码实验：用 torch 亲手写出本课内容（{tasks}）。按 F8。",
    },
    "lab-init-here": {
        "en": "No lab files in {dir} yet. Press i to write them (existing files are never overwritten).",
        "zh": "{dir} 中还没有实验文件。按 i 写入（已有文件不会被覆盖）。",
    },
    "lab-key-check": {"en": "check", "zh": "检查"},
    "lab-key-hint": {"en": "hint", "zh": "提示"},
    "lab-key-solution": {"en": "solution", "zh": "参考答案"},
    "lab-key-init": {"en": "write files", "zh": "写入文件"},
    "lab-key-back": {"en": "back", "zh": "返回"},
    "lab-key-open": {"en": "code lab", "zh": "代码实验"},
}

ERRORS: dict[str, str] = {
    "sequence-too-short": "序列太短：至少需要 {need} 个 token，实际只有 {n} 个",
    "length-too-small": "掩码至少需要 1 个位置，收到 n={n}",
    "p-out-of-range": "选择概率 p 必须在 [0, 1] 之间，收到 {p}",
    "bad-split": "mask/random/keep 三个比例必须都在 [0, 1] 之间且相加为 1，收到 {split}",
    "prefix-out-of-range": "前缀长度 {prefix} 必须在 0 到 {n} 之间",
    "span-out-of-range": "片段 {start}:{end} 为空或超出了 {n} 个 token 的序列（需要 0 <= 起点 < 终点 <= {n}）",
    "spans-overlap": "片段 {first} 与 {second} 重叠",
    "too-many-spans": "{spans} 个片段需要 {need} 个哨兵（目标以下一个哨兵结尾），但只有 {sentinels} 个",
    "density-out-of-range": "噪声比例必须在 [0, 1] 之间，收到 {density}",
    "mean-span-out-of-range": "平均片段长度必须为正数，收到 {mean}",
    "position-out-of-range": "位置 {position} 超出了 {n} 个 token 的范围（位置从 0 开始计数）",
    "special-selected": "位置 {position} 是特殊符号 {token}，掩码从不选中它",
    "unknown-fate": "未知的命运 {fate!r}：请用 mask、random 或 keep",
    "size-too-small": "{name} 至少为 {low}，收到 {value}",
    "unknown-mask-kind": "未知的掩码类型 {kind!r}：请用 causal、bidirectional 或 prefix",
    "no-spans": "请至少给出一个要遮盖的片段",
}


def t(key: str, lang: str, **params: object) -> str:
    """The message ``key`` in ``lang`` (English if the key has no such language)."""
    entry = MESSAGES[key]
    template = entry.get(lang, entry["en"])
    return template.format(**params)


def error_text(error: Exception, lang: str) -> str:
    """One line for the learner: the engine's error in their language."""
    code = getattr(error, "code", None)
    params = getattr(error, "params", {})
    if lang == "zh" and code in ERRORS:
        try:
            return ERRORS[code].format(**params)
        except (KeyError, IndexError, ValueError):
            pass
    return str(error)
