"""The words the command line and the app speak, in English and Chinese.

One mechanism: a sentence is a bilingual pair ``L(en, zh)`` (exercises/text.py), said
with ``pick``/``t``. ``MESSAGES`` names the pairs the app and the command line share;
``ARGPARSE`` is argparse's own sentences by msgid; the engine's errors carry a code
whose pair lives in engine/errors.py (``error_text``). docs/contributing.md says how
to add a string.
"""

from __future__ import annotations

import os

from exercises.text import Bilingual, L, pick

LANGUAGES = ("zh", "en")


def detect_language() -> str:
    """zh when the locale says Chinese, else en (OBJECTIVES_TUTOR_LANG wins)."""
    env = os.environ
    explicit = env.get("OBJECTIVES_TUTOR_LANG", "").strip().lower()
    if explicit in LANGUAGES:
        return explicit
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


MESSAGES: dict[str, Bilingual] = {
    "error-line": L("{prog}: error: {message}", "{prog}：错误：{message}"),
    "internal-error": L(
        "unexpected internal error ({detail}); please report it", "意外的内部错误（{detail}），请报告给我们"
    ),
    "position": L("pos", "位置"),
    "token": L("token", "token"),
    "input": L("input", "输入"),
    "label": L("label", "标签"),
    "selected": L("selected", "选中"),
    "fate": L("fate", "处理"),
    "fate-mask": L("[MASK]", "[MASK]"),
    "fate-random": L("random", "随机词"),
    "fate-keep": L("kept", "不变"),
    "no-loss": L("-100", "-100"),  # PyTorch's ignore_index, as the lessons print it
    "special": L("special, never selected", "特殊符号，从不选中"),
    "mask-title-causal": L(
        "Causal mask (rows: query, columns: key; 1 = blocked, 0 = may look)",
        "因果掩码（行：查询位置，列：键位置；1 = 被遮盖，0 = 可以看）",
    ),
    "mask-title-bidirectional": L(
        "Bidirectional mask (rows: query, columns: key; 1 = blocked, 0 = may look)",
        "双向掩码（行：查询位置，列：键位置；1 = 被遮盖，0 = 可以看）",
    ),
    "mask-title-prefix": L(
        "Prefix-LM mask, prefix {prefix} (rows: query, columns: key; 1 = blocked, 0 = may look)",
        "前缀语言模型掩码，前缀长度 {prefix}（行：查询位置，列：键位置；1 = 被遮盖，0 = 可以看）",
    ),
    "columns-block": L("columns {first}-{last}:", "第 {first}-{last} 列："),
    "too-large": L(
        "{n} positions are too many to draw usefully here (at most {cap}); --json prints them all",
        "{n} 个位置太多，这里画不清楚（最多 {cap} 个）；完整内容请用 --json",
    ),
    "too-large-grid": L(
        "{rows} × {columns} values are too many to draw usefully here (at most {max_rows} rows of {max_columns}); "
        "--json prints them all",
        "{rows} × {columns} 个值太多，这里画不清楚（最多 {max_rows} 行、每行 {max_columns} 个）；完整内容请用 --json",
    ),
    "sees": L("position {i} sees {visible}", "位置 {i} 能看到 {visible}"),
    "clm-heading": L(
        "Causal LM: each input position predicts the next token", "因果语言建模：每个输入位置预测下一个 token"
    ),
    "mlm-heading": L(
        "Masked LM (p = {p}): selected positions enter the loss with their original token",
        "掩码语言建模（p = {p}）：被选中的位置以原始词为标签参与损失",
    ),
    "mlm-counts": L(
        "selected {total}: [MASK] {mask}, random {random}, kept {keep}",
        "共选中 {total} 个：[MASK] {mask} 个，随机词 {random} 个，保持不变 {keep} 个",
    ),
    "span-heading": L("Span corruption (T5): spans {spans}", "片段破坏（T5）：片段 {spans}"),
    "span-inputs": L("inputs :", "输入："),
    "span-targets": L("targets:", "目标："),
    "prefix-heading": L(
        "Prefix LM, prefix {prefix}: the prefix is read both ways, only the rest is predicted",
        "前缀语言模型，前缀长度 {prefix}：前缀双向可见，只预测其后的部分",
    ),
    "tb-clm-ids": L("input token ids (shape: {shape}):", "输入 token ids（形状：{shape}）："),
    "tb-clm-loss": L("CLM loss: {loss}", "CLM 损失值：{loss}"),
    "tb-clm-baseline": L(
        "untrained baseline ln({V}) = {baseline}\nwithout the 1/sqrt({d}) scaling the loss is {unscaled}",
        "未训练基线 ln({V}) = {baseline}\n若投影层不按 1/sqrt({d}) 缩放，损失变为 {unscaled}",
    ),
    "tb-clm-mask": L(
        "causal attention mask (1 = blocked: may not look at the future):",
        "因果注意力掩码（1 表示被遮盖，即不能看未来）：",
    ),
    "tb-mlm-original": L("original token ids:", "原始输入 token ids："),
    "tb-mlm-selected": L("selected positions (1 = selected):", "候选掩盖位置（1 表示被选中）："),
    "tb-mlm-inputs": L("final input token ids:", "最终输入 token ids："),
    "tb-mlm-labels": L("MLM labels (-100 = not in the loss):", "MLM 标签（-100 表示该位置不参与损失）："),
    "tb-mlm-total": L("selected {total} tokens in all.", "统计：共选中 {total} 个候选 token。"),
    "tb-mlm-mask": L("  [MASK]: {n} ({pct}%)", "  [MASK] 替换：{n}（{pct}%）"),
    "tb-mlm-random": L("  random: {n} ({pct}%)", "  随机词替换：{n}（{pct}%）"),
    "tb-mlm-keep": L("  kept:   {n} ({pct}%)", "  保持不变：{n}（{pct}%）"),
    "tb-vis-length": L("sequence length: {n}", "序列长度：{n}"),
    "tb-vis-causal": L(
        "causal mask (CLM), rows: query, columns: key, 1 = blocked:",
        "因果掩码（CLM），行：查询位置，列：键位置，1 = 被遮盖：",
    ),
    "tb-vis-full": L(
        "full mask (MLM), every position sees every position:", "全连接掩码（MLM），所有位置互相可见："
    ),
    "tb-vis-causal-sees": L("under CLM position i sees [0, i]:", "CLM 下，位置 i 能看到 [0, i]："),
    "tb-vis-full-sees": L("under MLM position i sees everything:", "MLM 下，位置 i 能看到全部位置："),
    "tb-vis-row": L("  position {i}: {visible}", "  位置 {i}：{visible}"),
    "objective": L("objective", "目标"),
    "title": L("title", "标题"),
    "solution": L("Solution (computed by the engine):", "参考答案（由引擎计算）："),
    "solution-model-answer": L("Model answer (written by the course):", "参考答案（由课程编写）："),
    "score": L("score", "得分"),
    # The app
    "app-title": L("objectives-tutor", "预训练目标导师"),
    "app-subtitle": L("how language models are pretrained", "语言模型是怎样预训练的"),
    "home-intro": L(
        "Pick a lesson (↑/↓, Enter). Each has its text, a live figure computed by the torch engine, and exercises.",
        "选择一课（↑/↓，回车）。每课都有讲解、由 torch 引擎实时计算的图，以及练习。",
    ),
    "continue": L("Continue: {title}", "继续上次：{title}"),
    "progress": L("{done}/{total} solved", "已做对 {done}/{total}"),
    "progress-mastered": L(" · {mastered} mastered", " · 掌握 {mastered}"),
    "home-review": L(
        "Review: {n} due (mistakes come back as new variants)", "复习：{n} 题到期（错题以新变体回来）"
    ),
    "home-review-none": L("Review: nothing due", "复习：暂无到期"),
    "home-history": L("History of attempts", "答题记录"),
    "home-settings": L("Settings: language, theme, hints", "设置：语言、主题、提示"),
    "review-title": L("Review", "复习"),
    "review-empty": L(
        "Nothing is due. Exercises you get wrong come back after {days} days, one step further each time you get them right.",
        "暂无到期的题。做错的题会依次在 {days} 天后回来：每答对一次，间隔进一步。",
    ),
    "review-line": L(
        "{exercise} — missed {misses}×, due {when}{last}", "{exercise} —— 错过 {misses} 次，{when}到期{last}"
    ),
    "review-last": L("; last time: {code}", "；上次：{code}"),
    "review-due-now": L("now", "现在"),
    "history-title": L("History", "答题记录"),
    "history-empty": L("No attempts yet.", "还没有答题记录。"),
    "history-when": L("when", "时间"),
    "history-exercise": L("exercise", "练习"),
    "history-score": L("score", "得分"),
    "history-misconception": L("misconception", "误区"),
    "settings-title": L("Settings", "设置"),
    "history-attempts": L("attempts", "作答次数"),
    "history-solved": L("solved", "做对"),
    "history-mastered": L("mastered", "掌握"),
    "history-due": L("due", "待复习"),
    "progress-store": L("progress file: {path}", "进度文件：{path}"),
    "reset-confirm": L(
        "Erase all progress in {path}? A backup copy is kept. Type yes to go on: ",
        "清空 {path} 中的全部进度？会保留一份备份。输入 yes 继续：",
    ),
    "reset-kept": L("Nothing erased.", "未清空任何内容。"),
    "reset-nothing": L("There is no progress to erase.", "没有可清空的进度。"),
    "reset-done": L(
        "Progress erased (exercises and code lab); the backup is {backup}",
        "进度已清空（练习和代码实验）；备份在 {backup}",
    ),
    "reset-training-done": L(
        "The training lab's last run was moved to {backup}", "训练实验的上一次结果已移到 {backup}"
    ),
    "recorded": L("recorded in {path}", "已记录到 {path}"),
    "settings-language": L("Language", "语言"),
    "settings-theme": L("Theme", "主题"),
    "settings-hints": L("Hints", "提示"),
    "hints-always": L("always available", "随时可用"),
    "hints-after-first-try": L("only after a first try", "先作答一次后才可用"),
    "hints-never": L("off (exam practice)", "关闭（模拟考试）"),
    "hints-locked": L("Hints come after a first try (see Settings).", "先作答一次才能看提示（见设置）。"),
    "hints-off": L("Hints are off (see Settings).", "提示已关闭（见设置）。"),
    "solution-locked": L(
        "Exam practice: the solution comes after your first answer (see Settings).",
        "模拟考试：先作答一次，才能看答案（见设置）。",
    ),
    "settings-saved": L("Saved.", "已保存。"),
    "not-saving": L("not saving: {why}", "未保存：{why}"),
    "engine-loading": L("loading the torch engine…", "正在加载 torch 引擎……"),
    "engine-ready": L("engine ready", "引擎已就绪"),
    "engine-failed": L("the engine failed to load: {error}", "引擎加载失败：{error}"),
    "tab-lesson": L("Lesson", "讲解"),
    "tab-figure": L("Live figure", "实时图"),
    "tab-practice": L("Practice", "练习"),
    "no-figure": L(
        "This lesson has no live figure: read it, then practise.", "这一课没有实时图：读完后直接练习。"
    ),
    "too-small": L(
        "The window is {width}×{height}; objectives-tutor needs at least {min_width}×{min_height}. Please enlarge it.",
        "窗口大小为 {width}×{height}；至少需要 {min_width}×{min_height}。请把窗口调大。",
    ),
    "key-quit": L("Quit", "退出"),
    "key-help": L("Help", "帮助"),
    "key-language": L("中文", "English"),
    "key-back": L("Back", "返回"),
    "key-hint": L("Hint", "提示"),
    "key-solution": L("Solution", "答案"),
    "key-new": L("New variant", "换一题"),
    "key-check": L("Check", "提交"),
    "key-toggle": L("Toggle", "切换"),
    "key-palette": L("Commands", "命令"),
    "variant": L("variant {seed}", "变体 {seed}"),
    "seed-shown": L("seed {seed}", "种子 {seed}"),
    "hint-n": L("Hint {n}/{total}: {text}", "提示 {n}/{total}：{text}"),
    "no-more-hints": L("No more hints: try the solution (s).", "没有更多提示了：可以看答案（s）。"),
    "solution-shown": L("Solution (from the engine):", "参考答案（由引擎计算）："),
    "part-line": L("{part}: ", "{part}："),
    "choice-wrong": L("You chose {option}: not right.", "你选了 {option}：不对。"),
    "choice-right": L("You chose {option}: right.", "你选了 {option}：对。"),
    "score-capped": L(
        "The parts add up to {parts}, but an answer showing the misconception below scores at most {cap}.",
        "各部分合计 {parts}，但答案里出现了下面的误区，最多只能得 {cap}。",
    ),
    "answer-enter": L(
        "Enter moves to the next part and checks when all are filled.",
        "回车跳到下一项，全部填完后提交。",
    ),
    "answer-help-line": L("{line} {keys}", "{line}{keys}"),
    "answer-keys": L("Esc, then: {keys}.", "按 Esc 后：{keys}。"),
    "answer-keys-direct": L("Keys: {keys}.", "按键：{keys}。"),
    "help-key-hint": L("h hint", "h 提示"),
    "help-key-solution": L("s solution", "s 答案"),
    "help-key-new": L("n new variant", "n 换一题"),
    "matrix-help": L(
        "Arrows move, Space toggles a cell (1 = blocked), Enter checks. Mouse clicks toggle too.",
        "方向键移动，空格切换格子（1 = 被遮盖），回车提交。鼠标点击也能切换。",
    ),
    "self-mark": L(
        "Write your explanation and press Enter: the model answer appears; then mark yourself with y / p / x (or the list).",
        "写下你的解释并按回车：参考答案随即出现；然后用 y / p / x（或列表）给自己打分。",
    ),
    "reflect-first": L("Write your explanation first.", "请先写下你的解释。"),
    "answer-unchanged": L(
        "Already checked: the same answer is not another try. Change it to try again.",
        "这个答案已经检查过了，再按一次不算新的一次作答。改一改再提交。",
    ),
    "choice-help": L(
        "Type the letter, or pick with the arrows and Enter.", "输入选项字母，或用方向键选择后回车。"
    ),
    "self-marked-as": L("You marked yourself: {mark}", "你的自评：{mark}"),
    "waiting-engine": L("Waiting for the engine…", "等待引擎……"),
    "fig-length": L("length", "长度"),
    "fig-seed": L("seed {seed}", "种子 {seed}"),
    "fig-key-predict": L("g predict first", "g 先预测"),
    "fig-key-edit": L("Enter: type", "回车 输入句子"),
    "fig-typing": L(
        "Typing: r, +, g are letters here · Enter or Esc: back to the keys",
        "正在输入：r、+、g 在这里都是文字 · 回车或 Esc：回到按键",
    ),
    "fig-typing-tab": L("Tab: the other box", "Tab：另一个框"),
    "fig-type-how": L(
        "To type, press Enter first (Esc comes back to the keys).",
        "要输入文字，请先按回车（按 Esc 回到按键）。",
    ),
    "fig-clm-keys": L(
        "-/+ length · d toggles the 1/sqrt(d) scaling · r new seed",
        "-/+ 调长度 · d 切换 1/sqrt(d) 缩放 · r 换随机种子",
    ),
    "fig-clm-loss": L(
        "loss {loss:.4f}  vs  ln V = {baseline:.4f} (V = {V})  →  {verdict}",
        "损失 {loss:.4f}  对比  ln V = {baseline:.4f}（V = {V}）→  {verdict}",
    ),
    "fig-clm-ok": L("about right for an untrained model", "对未训练的模型来说正常"),
    "fig-clm-bad": L(
        "far too high: softmax saturated (in this demo: no 1/sqrt(d) scaling; in real models: the initialisation scale)",
        "远远偏高：softmax 已饱和（在这个演示里：没有按 1/sqrt(d) 缩放；在真实模型里：初始化的尺度）",
    ),
    "fig-scaling-on": L("projection scaled by 1/sqrt({d})", "投影层按 1/sqrt({d}) 缩放"),
    "fig-scaling-off": L("projection NOT scaled", "投影层没有缩放"),
    "fig-mlm-keys": L(
        "-/+ p · [ ] batch below · r resample · w [CLS]…[SEP]",
        "-/+ 调 p · [ ] 下方批次 · r 重新抽样 · w 加 [CLS]…[SEP]",
    ),
    "fig-mlm-batch-notes": L(
        "Not this sentence: the course notes' run, the same rule over a batch of {batch}×{length} random ids",
        "不是上面这句：讲义的实验，同一规则用在 {batch}×{length} 个随机 id 组成的批次上",
    ),
    "fig-mlm-batch": L(
        "Not this sentence: the same rule over a batch of {batch}×{length} random ids (same seed and p)",
        "不是上面这句：同一规则用在 {batch}×{length} 个随机 id 组成的批次上（种子和 p 同上）",
    ),
    # issue 24: subwords and whole-word masking
    "fig-sw-keys": L(
        "-/+ vocabulary · [ ] p · r resample · type a sentence (space Chinese words)",
        "-/+ 词表大小 · [ ] 调 p · r 重新抽样 · 可输入句子（中文词之间加空格）",
    ),
    "fig-sw-vocab": L(
        "WordPiece trained on the course's text: {size} entries (characters alone: {chars})",
        "在本课文本上训练的 WordPiece：词表 {size} 项（只有单字符时 {chars} 项）",
    ),
    "fig-sw-count": L(
        "{words} words → {pieces} pieces · underlined: cut into pieces (## continues a word)",
        "{words} 个词 → {pieces} 个子词 · 下划线：被切开的词（## 接着前一片）",
    ),
    "fig-sw-piece": L("piece", "子词"),
    "fig-sw-word": L("word", "词"),
    "fig-sw-per-piece": L("per piece (BERT)", "按片遮（BERT）"),
    "fig-sw-whole-word": L("whole word (wwm)", "整词遮（wwm）"),
    "fig-sw-settings": L(
        "p = {p:.2f} · seed {seed} · the same draws both ways: a word is chosen by its first piece's draw",
        "p = {p:.2f} · 种子 {seed} · 两种遮法用同一组随机数：一个词由它第一片的随机数决定",
    ),
    "fig-sw-half": L(
        "✂ per piece, a word is half hidden: {pieces}. Its visible pieces give the answer away.",
        "✂ 按片遮时有个词只遮了一半：{pieces}。露出的那几片就把答案泄露了。",
    ),
    "fig-sw-labels": L(
        "The label at every selected position is its own piece: the model still predicts pieces.",
        "每个被选中位置的标签都是它自己那一片：模型预测的仍是一片一片。",
    ),
    "fig-sw-kept": L("(kept)", "（不变）"),
    "fig-sw-random": L("(random)", "（随机）"),
    # issue 24: packing documents into windows
    "fig-pk-keys": L(
        "-/+ window L · r shuffle · o in order · d drop/pad tail · docs split by |",
        "-/+ 窗口长度 L · r 打乱 · o 原顺序 · d 丢掉/补齐尾巴 · 文档之间用 | 隔开",
    ),
    "fig-pk-default": L("the cat sat | dogs bark at night | birds sing", "猫在睡觉 | 下雨了 | 我们去公园"),
    "fig-pk-head": L(
        "L = {window} · documents: {documents} · tokens with </s>: {tokens} · windows: {windows} · {order}",
        "L = {window} · {documents} 篇文档，连同 </s> 共 {tokens} 个 token · {windows} 个窗口 · {order}",
    ),
    "fig-pk-head-refused": L(
        "L = {window} · documents: {documents} · tokens with </s>: {tokens} · no windows drawn · {order}",
        "L = {window} · {documents} 篇文档，连同 </s> 共 {tokens} 个 token · 没有画出窗口 · {order}",
    ),
    "fig-pk-in-order": L("in the order typed", "按输入顺序"),
    "fig-pk-shuffled": L("shuffled (seed {seed})", "已打乱（种子 {seed}）"),
    "fig-pk-window": L("window {n}", "窗口 {n}"),
    "fig-pk-labels": L("  label", "  标签"),
    "fig-pk-document": L("({number}) ", "（{number}）"),
    "fig-pk-crossing": L(
        "Documents that run on into the next window: {documents}.", "延续到下一个窗口的文档：{documents}。"
    ),
    "fig-pk-boundary": L(
        "Underlined: a label from the next document ({separator} predicts its first token).",
        "带下划线的标签来自下一篇文档（{separator} 要预测它的第一个 token）。",
    ),
    "fig-pk-dropped": L(
        "Dropped, shorter than a window: {n} token(s) ({tokens}), as Hugging Face's group_texts does.",
        "不足一个窗口而丢掉：{n} 个 token（{tokens}），和 Hugging Face 的 group_texts 一样。",
    ),
    "fig-pk-padded": L(
        "The last window is filled with {n} [PAD] instead: no label where [PAD] is read or predicted.",
        "最后一个窗口改用 {n} 个 [PAD] 补齐：读到或要预测 [PAD] 的位置都没有标签。",
    ),
    "fig-pk-last": L(
        "Each window is one row of the batch: its last position has nothing after it, so its label is -100.",
        "每个窗口是批次里的一行：最后一个位置后面没有 token，所以标签是 -100。",
    ),
    "fig-mlm-counts": L(
        "selected {total} → [MASK] {mask} ({mp}), random {random} ({rp}), kept {keep} ({kp})",
        "选中 {total} 个 → [MASK] {mask} 个（{mp}），随机词 {random} 个（{rp}），不变 {keep} 个（{kp}）",
    ),
    "fig-vis-keys": L(
        "c causal · b bidirectional · p prefix · -/+ length · [ ] prefix · ↑/↓ row · ←/→ scroll",
        "c 因果 · b 双向 · p 前缀 · -/+ 长度 · [ ] 前缀长度 · ↑/↓ 选行 · ←/→ 左右滚动",
    ),
    "fig-prefix-keys": L(
        "[ ] prefix length · r random cut (plain text, as T5)",
        "[ ] 调前缀长度 · r 随机切分（普通文本，同 T5）",
    ),
    "fig-prefix-random": L(
        "Cut at random, as T5 pretrains on plain text: the prefix is the first {cut} of {n} tokens (cut drawn from 1 to N−1)",
        "随机切分，和 T5 在普通文本上预训练时一样：前缀是 {n} 个 token 中的前 {cut} 个（切分点在 1 到 N−1 之间随机抽取）",
    ),
    "fig-span-keys": L(
        "-/+ density · [ ] mean span · r new random spans",
        "-/+ 噪声比例 · [ ] 平均长度 · r 重抽随机片段",
    ),
    "fig-samples-keys": L("the three samples follow the sentence you type", "三种样本随你输入的句子同步更新"),
    "fig-spans": L("spans (e.g. 2:5,7:8; empty: T5's random spans)", "片段（如 2:5,7:8；留空：T5 随机片段）"),
    # (zh labels padded with ideographic spaces to one width: 18 columns)
    "samples-causal-inputs": L("causal inputs :", "因果语言建模输入："),
    "samples-causal-labels": L("causal labels :", "因果语言建模标签："),
    "samples-masked-inputs": L("masked inputs :", "掩码语言建模输入："),
    "samples-masked-labels": L("masked labels :", "掩码语言建模标签："),
    "samples-span-inputs": L("span inputs   :", "片段破坏　　输入："),
    "samples-span-target": L("span target   :", "片段破坏　　目标："),
    "fig-span-params": L(
        "T5's random spans (the lesson's settings at start): density {density:.2f} · mean span {mean:g} · seed {seed}",
        "T5 的随机片段（初始为本课的设置）：噪声比例 {density:.2f} · 平均长度 {mean:g} · 种子 {seed}",
    ),
    "fig-span-bad": L(
        "Spans look like 2:5,7:8 (start:end, end excluded).", "片段的写法如 2:5,7:8（起点：终点，终点不含）。"
    ),
    "fig-clm-rows": L("batch row {row}: ", "第 {row} 行："),
    "fig-mask-legend": L("1 = blocked, 0 = may look", "1 = 被遮盖，0 = 可以看"),
    "matrix-cap": L(
        "{n} positions: too many to draw usefully (at most {cap}). Shorten the sequence.",
        "{n} 个位置：太多了，画不清楚（最多 {cap} 个）。请缩短序列。",
    ),
    "exam-question": L("Question {n} of {total}", "第 {n} 题，共 {total} 题"),
    "exam-left": L("{student} · {minutes}:{seconds:02d} left", "{student} · 剩余 {minutes}:{seconds:02d}"),
    "exam-left-minutes": L("{student} · {minutes} min left", "{student} · 剩余 {minutes} 分钟"),
    "exam-no-limit": L("{student} · no time limit", "{student} · 不限时"),
    "exam-prev": L("Previous", "上一题"),
    "exam-next": L("Next", "下一题"),
    "exam-submit": L("Submit", "提交试卷"),
    "exam-confirm": L(
        "{answered} of {total} questions answered. Press Submit again to hand in; you cannot change answers afterwards.",
        "已作答 {answered}/{total} 题。再按一次“提交试卷”即交卷；交卷后不能再修改。",
    ),
    "exam-time-up": L("Time is up: your answers were submitted.", "时间到：答案已自动提交。"),
    "exam-submitted": L("Submitted: {path}", "已提交：{path}"),
    "exam-results": L(
        "Your results: {total:.2f} of {count:g} ({percent:.0f}%)",
        "你的成绩：{total:.2f} / {count:g}（{percent:.0f}%）",
    ),
    "exam-unanswered": L("not answered", "未作答"),
    "exam-done": L("submitted ✓", "已交卷 ✓"),
    "exam-taken-at-close": L(
        "not submitted: your saved answers were taken when the quiz closed",
        "未交卷：测验关闭时收取了你已保存的答案",
    ),
    "exam-taken-at-time-up": L(
        "not submitted: your saved answers were taken when the time ran out",
        "未交卷：时间到时收取了你已保存的答案",
    ),
    "not-graded": L(
        "Not graded by the machine: compare with the model answer and mark yourself (--answer self_mark=yes|partly|no).",
        "此题不由机器评分：请对照参考答案自评（--answer self_mark=是|部分|否）。",
    ),
    # Code health (h4, issue 10)
    # An aside after a line (its own style, often dim): two spaces and half-width
    # parentheses in English, full-width parentheses hugging the Chinese.
    "aside": L("  ({text})", "（{text}）"),
    "mark-now": L(
        "Now mark yourself: y had it · p partly · x missed it.",
        "现在给自己打分：y 答对了 · p 部分对 · x 没答对。",
    ),
    # h2 content (issue 9): CLM layouts, T5 targets, the span figure's settings
    "fig-clm-data-side": L("data-side", "数据端错位"),
    "fig-clm-loss-side": L("loss-side (HF)", "损失端错位（HF）"),
    "fig-clm-pair": L("logit→label", "logit→标签"),
    "fig-clm-unused": L("unused", "不用"),
    "fig-clm-layouts": L(
        "Both layouts score logit t against token t+1. Data-side (the section “Pretraining methods”): inputs tokens[:-1], labels tokens[1:]. Loss-side (the section “Self-supervision and LM objectives”, Hugging Face): labels = input_ids, the loss compares logits[:, :-1] with labels[:, 1:].",
        "两种排法都拿位置 t 的 logit 和 token t+1 比较。数据端（《预训练方法》一节）：输入 tokens[:-1]，标签 tokens[1:]。损失端（《自监督与语言建模目标》一节、Hugging Face）：标签 = input_ids，损失比较 logits[:, :-1] 和 labels[:, 1:]。",
    ),
    "fig-clm-variance": L(
        "logits here have variance σ² = {var:.2f}, so random logits give about ln V + σ²/2 = {expected:.2f}; the rest is chance over {count} positions",
        "这里 logits 的方差 σ² = {var:.2f}，随机 logits 的损失约为 ln V + σ²/2 = {expected:.2f}；余下的差别是 {count} 个位置上的偶然波动",
    ),
    "fig-span-eos": L("T5 ends inputs and targets with </s>.", "T5 在输入和目标序列末尾都加 </s>。"),
    "fig-span-closed": L(
        "Kept text follows the last span, so the target closes with {sentinel}, which stands for it.",
        "最后一个片段后面还有保留的文本，所以目标序列以 {sentinel} 收尾，它代表那段文本。",
    ),
    "fig-span-open": L(
        "The last span reaches the end, so the target ends with that span: no closing sentinel.",
        "最后一个片段一直到末尾，所以目标序列就以这个片段结尾，不再加收尾的哨兵。",
    ),
    "fig-span-why": L(
        "Why: {n} tokens × density {density:.2f} = {raw:.2f}, rounded → {noise} noise token(s); max(round({noise} ÷ {mean:g}), 1) → {spans} span(s). T5 starts with kept text and ends with noise, so a single span always comes last.",
        "原因：{n} 个 token × 噪声比例 {density:.2f} = {raw:.2f}，取整 → {noise} 个噪声 token；max(round({noise} ÷ {mean:g}), 1) → {spans} 个片段。T5 总以保留的文本开头、以噪声结尾，所以只有一个片段时它总在最后。",
    ),
    "fig-span-merged": L(
        "Spans that touch hide one unbroken run: T5 makes them one span with one sentinel.",
        "首尾相接的片段合起来遮住一段连续的 token：T5 把它们当作一个片段，只用一个哨兵。",
    ),
    "fig-mlm-same": L("= original", "恰为原词"),
    "fig-prefix-default": L(
        "translate to French : the cat sleeps → le chat dort", "翻译成英文 ： 猫 在 睡觉 → the cat sleeps"
    ),
    # --- h1 grading: rubrics and question pools (exercise --rubric, exercises) ---
    "rubric-title": L("How this exercise is scored", "本题的评分规则"),
    "rubric-full": L("Full credit:", "满分："),
    "rubric-partial": L("Part of the credit:", "部分分："),
    "rubric-caps": L("At most (an answer showing this misconception):", "最高得分（答案暴露出以下误区时）："),
    "pool": L("questions", "题量"),
    "pool-endless": L("many", "很多"),
    # -- h4 content (session 3): the exercise command's own words --
    "part-format": L("{label} (format: {example})", "{label}（格式：{example}）"),
    "self-marked-title": L("{title} (self-marked)", "{title}（自评）"),
    "self-mark-unread": L(
        "Could not read your self-mark: write yes, partly or no (--answer self_mark=yes|partly|no).",
        "读不懂你的自评：请写 是、部分 或 否（--answer self_mark=是|部分|否）。",
    ),
    "hints-heading": L("Hints (try the first before reading the next):", "提示（先试第一条，再看下一条）："),
    # -- classroom quizzes (h3, issue 12): the quiz command and the exam screen --
    "quiz-exists": L(
        "{path} exists; choose another file or add --force", "{path} 已存在；请换一个文件名或加 --force"
    ),
    "quiz-teacher-needs-roster": L(
        "--teacher names the file written from --roster; give a roster too",
        "--teacher 是由 --roster 生成的文件；请同时给出名单",
    ),
    "quiz-made": L("{id}: {count} questions -> {path}", "{id}：{count} 道题 -> {path}"),
    "quiz-teacher-file": L(
        "{count} students with a PIN each -> {path} (keep it; give each student only their own PIN)",
        "{count} 名学生，各有一个 PIN -> {path}（请保管好；每个学生只拿到自己的 PIN）",
    ),
    "quiz-release-file": L(
        "the release secret -> {path} (keep it: quiz release needs it)",
        "发布密钥 -> {path}（请保管好：quiz release 需要它）",
    ),
    "quiz-pin-checks": L(
        "making a PIN check for each of {count} students (a few seconds)…",
        "正在为 {count} 名学生逐一生成 PIN 校验（需要几秒钟）……",
    ),
    "quiz-pin-needed": L(
        "this quiz is signed and there is no terminal to ask for your PIN: set {env}",
        "这份测验需要签名，但没有终端可以输入 PIN：请设置环境变量 {env}",
    ),
    "quiz-pin-flag": L(
        "--pin would show your PIN to every account on this computer (ps lists command lines): leave it out and type the PIN when asked, or set {env}",
        "--pin 会让这台电脑上的所有账户看到你的 PIN（ps 会列出命令行）：请去掉它，在提示时输入 PIN，或设置环境变量 {env}",
    ),
    "quiz-pin-prompt": L("Your PIN (from your teacher): ", "你的 PIN（老师发给你的）："),
    "quiz-unverified": L(
        "this quiz is signed but no --teacher file was given: signatures are NOT checked",
        "这份测验需要签名，但没有给出 --teacher 文件：签名未被核对",
    ),
    "quiz-unisolated-running": L(
        "running students' lab files WITHOUT isolation ({why}): their code has your rights over your "
        "files, processes and network; the rows are flagged 'unisolated'",
        "正在没有隔离的情况下运行学生的实验文件（{why}）：他们的代码拥有你对文件、进程和网络的全部权限；"
        "这些行标记为 unisolated",
    ),
    "quiz-skipped": L("skipped {path}: not a submission", "跳过 {path}：不是提交文件"),
    "quiz-rejected": L("rejected {path}: {why}", "拒收 {path}：{why}"),
    "quiz-conflict": L(
        "conflict: {student} has two different submissions ({files}); neither graded",
        "冲突：{student} 有两份不同的提交（{files}）；都未评分",
    ),
    "quiz-col-student": L("student", "学生"),
    "quiz-col-points": L("points", "得分"),
    "quiz-col-notes": L("notes", "备注"),
    "quiz-grade-summary": L(
        "{statuses}; {rejected} files rejected, {conflicts} conflicts",
        "{statuses}；拒收文件 {rejected} 份，冲突 {conflicts} 起",
    ),
    "quiz-format-bad": L(
        "--format must be one of {formats}, not {value}", "--format 只能是 {formats} 之一，而不是 {value}"
    ),
    "quiz-no-folder": L("{path} is not a folder", "{path} 不是文件夹"),
    "quiz-released": L(
        "results released: {path} (students opening the quiz now see their results)",
        "成绩已发布：{path}（学生现在打开测验即可看到成绩）",
    ),
    "quiz-release-needs-teacher": L(
        "no teacher file {path}: quiz release needs its release secret (give the file with --teacher)",
        "没有教师文件 {path}：quiz release 需要其中的发布密钥（用 --teacher 给出该文件）",
    ),
    "exam-enter-parts": L(
        "Enter: next box, then next question · PgDn/PgUp: question · Ctrl+S: submit",
        "回车：下一个输入框，最后到下一题 · PgDn/PgUp：换题 · Ctrl+S：交卷",
    ),
    "exam-enter-choice": L(
        "a letter, or arrows + Enter: choose · PgDn/PgUp: question · Ctrl+S: submit",
        "字母键，或方向键 + 回车：选择 · PgDn/PgUp：换题 · Ctrl+S：交卷",
    ),
    "exam-enter-matrix": L(
        "Arrows + Space: toggle a cell · Enter: next question · Ctrl+S: submit",
        "方向键 + 空格：切换格子 · 回车：下一题 · Ctrl+S：交卷",
    ),
    "exam-too-long": L(
        "This answer is {length:,} characters long: at most {limit:,} are kept. Shorten it: until then it is not saved (the last saved version stays).",
        "这个答案有 {length:,} 个字符，最多保留 {limit:,} 个。请删短：删短之前不会保存（保留上一次保存的内容）。",
    ),
    "exam-closed-by-teacher": L(
        "The teacher closed the quiz: your saved answers were handed in.",
        "老师已关闭测验：你已保存的答案已经交上。",
    ),
    "exam-grading": L("Grading your answers…", "正在评分……"),
    "exam-results-held": L(
        "Submitted. Your teacher releases the results later: open this quiz again then.",
        "已交卷。成绩由老师稍后发布：届时再次打开这份测验即可查看。",
    ),
    "exam-scroll": L("↑↓ PgUp/PgDn: scroll · Ctrl+Q: quit", "↑↓ PgUp/PgDn：滚动 · Ctrl+Q：退出"),
    # -- the code lab (h6, issue 13) --------------------------------------------
    "lab-title": L("Code lab", "代码实验"),
    "lab-progress": L("{done} of {total} done", "已完成 {done} / {total}"),
    "lab-status-pass": L("passed", "通过"),
    "lab-status-fail": L("not yet: a rule is broken", "还没通过：有一条规则不满足"),
    "lab-status-not-started": L("not written yet", "还没有写"),
    "lab-status-invalid": L("cannot be run", "无法运行"),
    "lab-status-stopped": L("stopped", "已被终止"),
    "lab-rule-text": L("Rule {code}: {text}", "规则 {code}：{text}"),
    "lab-input": L("input (smallest found)", "输入（找到的最小例子）"),
    "lab-yours": L("your output", "你的输出"),
    "lab-required": L("the rule requires", "规则要求"),
    "lab-misconception": L("Misconception {code}: {text}", "常见误区 {code}：{text}"),
    "lab-convention": L("Convention: {text}", "约定：{text}"),
    "lab-exact": L("Identical to the engine's output, draw for draw.", "与引擎的输出逐次抽样完全一致。"),
    "lab-not-exact": L(
        "Right, with another draw order than the engine's (that is allowed).",
        "正确；抽样顺序与引擎不同（这是允许的）。",
    ),
    "lab-printed": L("your code printed:", "你的代码打印了："),
    "lab-seconds": L("{seconds:.1f} s, {calls} calls", "{seconds:.1f} 秒，调用 {calls} 次"),
    "lab-init-created": L("wrote {n} files in {dir}", "已在 {dir} 写入 {n} 个文件"),
    "lab-init-kept": L(
        "kept {n} existing files untouched (init never overwrites)", "保留了 {n} 个已有文件（init 从不覆盖）"
    ),
    "lab-init-next": L(
        "next: open {file} in your editor, then run `objectives-tutor lab watch --dir {dir}`",
        "下一步：用编辑器打开 {file}，然后运行 `objectives-tutor lab watch --dir {dir}`",
    ),
    "lab-no-workspace": L(
        "no lab files in {dir}: run `objectives-tutor lab init --dir {dir}` first",
        "{dir} 中没有实验文件：请先运行 `objectives-tutor lab init --dir {dir}`",
    ),
    "lab-unknown-task": L(
        "unknown task {task!r}; the tasks are {ids}", "没有名为 {task!r} 的题目；题目有 {ids}"
    ),
    "lab-missing-file": L(
        "{file} is not in {dir}; `objectives-tutor lab init --dir {dir}` writes the missing files",
        "{dir} 中没有 {file}；`objectives-tutor lab init --dir {dir}` 会补上缺少的文件",
    ),
    "lab-watching": L(
        "watching {dir}: save a file to check it again (Ctrl+C stops)",
        "正在监视 {dir}：保存文件即重新检查（Ctrl+C 停止）",
    ),
    "lab-current": L("Current task: {file}", "当前题目：{file}"),
    "lab-all-done": L("Every task passes. Well done!", "所有题目都通过了，干得好！"),
    "lab-hint": L("Hint {i} of {n}: {text}", "提示 {i} / {n}：{text}"),
    "lab-no-hints-left": L("No more hints for this task.", "这道题没有更多提示了。"),
    "lab-solution-locked": L(
        "The reference solution opens after your first attempt: write something and check {task} once.",
        "参考答案在你第一次尝试之后开放：先写点代码并检查一次 {task}。",
    ),
    "lab-not-saved": L("lab run not saved: {why}", "实验记录未保存：{why}"),
    "lab-unisolated": L(
        "your code runs WITHOUT isolation here ({why}): it can do whatever your account can. "
        "Check only code you trust on this computer.",
        "你的代码在这里运行时没有隔离（{why}）：它能做你的账户能做的任何事。在这台电脑上只检查你信任的代码。",
    ),
    "lab-checking": L("checking {file} …", "正在检查 {file} …"),
    "lab-open-hint": L(
        "▸ F8 Code lab: write this lesson in torch (tasks: {count})",
        "▸ F8 代码实验：用 torch 亲手写出本课（{count} 题）",
    ),
    "lab-open-all": L(
        "▸ F8 Code lab: write the objectives in torch", "▸ F8 代码实验：用 torch 亲手写出各个目标"
    ),
    "lab-watch-on": L("save = check", "保存即检查"),
    "lab-init-here": L(
        "No lab files in {dir} yet. Press i to write them (existing files are never overwritten).",
        "{dir} 中还没有实验文件。按 i 写入（已有文件不会被覆盖）。",
    ),
    "lab-key-check": L("check", "检查"),
    "lab-key-hint": L("hint", "提示"),
    "lab-key-solution": L("solution", "参考答案"),
    "lab-key-init": L("write files", "写入文件"),
    # -- h7: the training lab (train / probe commands and the lesson screen) --
    "train-training": L("training {objective}: {steps} steps …", "正在训练 {objective}：{steps} 步……"),
    "train-unknown-bug": L(
        "no shipped bug named {bug}; use one of {bugs}, or all",
        "没有名为 {bug} 的内置错误；请用其中之一：{bugs}，或 all",
    ),
    "train-lab-no-folder": L("no folder {folder}", "没有文件夹 {folder}"),
    "train-lab-none-ready": L(
        "no code of {folder} can build batches yet: bert_mask or prefix_lm_mask must pass its check first "
        "(objectives-tutor lab check bert_mask --dir {folder})",
        "{folder} 里还没有能构建批次的代码：bert_mask 或 prefix_lm_mask 要先通过检查"
        "（objectives-tutor lab check bert_mask --dir {folder}）",
    ),
    "train-no-cuda": L(
        "CUDA is not available here; use --device cpu", "这台机器没有可用的 CUDA；请用 --device cpu"
    ),
    "train-not-saved": L(
        "the models could not be saved ({why}); probes will need a new run",
        "模型无法保存（{why}）；探测前需要重新训练",
    ),
    "train-unreadable": L(
        "the saved models could not be read ({why}); the file was moved to {moved}; training again",
        "保存的模型无法读取（{why}）；文件已移到 {moved}；重新训练",
    ),
    "train-unreadable-moved": L(
        "the saved models could not be read ({why}); the file was moved to {moved}",
        "保存的模型无法读取（{why}）；文件已移到 {moved}",
    ),
    "probe-not-trained": L(
        "no usable trained models yet: train them first with `{command}` (two tiny models, 500 steps each: "
        "about 15 s on an idle machine)",
        "还没有可用的训练好的模型：请先运行 `{command}` 训练（两个小模型，各 500 步：空闲的机器上约 15 秒）",
    ),
    "probe-train-now": L(
        "No trained models yet. Train two tiny models on the {corpus} now (500 steps each: "
        "about 15 s on an idle machine; the same as `{command}`)?",
        "还没有训练好的模型。现在用{corpus}训练两个小模型吗（各 500 步：空闲的机器上约 15 秒；"
        "等同于 `{command}`）？",
    ),
    "probe-declined": L(
        "Nothing trained. When you are ready: {command}", "没有训练。准备好后运行：{command}"
    ),
    "train-table-title": L(
        "{corpus}, {steps} steps, seed {seed}: accuracy on {n} new sentences",
        "{corpus}，{steps} 步，种子 {seed}：在 {n} 个新句子上的准确率",
    ),
    "probe-unknown": L(
        "not in the vocabulary (read as [UNK]): {tokens}", "不在词表里（按 [UNK] 处理）：{tokens}"
    ),
    "attention-one-blank": L("mark at most one blank with _ or [MASK]", "最多只能用 _ 或 [MASK] 标一个空"),
    "attention-no-layer": L(
        "--layer {layer}: the model has {layers} layers", "--layer {layer}：这个模型只有 {layers} 层"
    ),
    "attention-no-head": L(
        "--head {head}: the model has {heads} heads", "--head {head}：这个模型只有 {heads} 个头"
    ),
    "attention-layer": L("layer {layer}", "第 {layer} 层"),
    "attention-head": L("head {head}", "第 {head} 个头"),
    "attention-mean-heads": L("mean of the heads", "各个头的平均"),
    "attention-legend": L(
        "attention weights in % (row = the position that looks, column = the position looked at; "
        "· = exactly 0)",
        "注意力权重，单位 %（行 = 去看的位置，列 = 被看的位置；· = 恰好为 0）",
    ),
    "attention-trained-mask": L(
        "the mask it was trained with (1 = may not look):", "它训练时用的掩码（1 = 不许看）："
    ),
    "attention-answer-row": L("row {row} ({token}) gives the answer", "第 {row} 行（{token}）给出答案"),
    "tl-intro": L(
        "Tick objectives, set the steps, Train (Ctrl+S); Ctrl+X cancels. Then p: type a text to "
        "probe the models and see what each one looks at.",
        "勾选训练目标、填步数，按“训练”（Ctrl+S）；Ctrl+X 取消。训练完按 p 输入文字，"
        "探测模型，并看每个模型在看哪里。",
    ),
    "tl-objectives": L("Objectives:", "训练目标："),
    "tl-steps": L("Steps:", "步数："),
    "tl-corpus": L("Text:", "语料："),
    "tl-own": L("Batches also from:", "另用此代码构建批次："),
    "tl-own-none": L("— the reference only", "——只用参考实现"),
    "tl-own-every-bug": L("every classic bug, in turn", "依次试每个经典错误"),
    "tl-own-ready": L(
        "your {tasks} passed its lab check: it can build the batches (run in the lab's sandbox)",
        "你的 {tasks} 已通过实验检查：可以用它构建批次（在实验沙箱中运行）",
    ),
    "tl-own-not-yet": L(
        "your own bert_mask joins this list once it passes its lab check (F8; folder {folder})",
        "你自己写的 bert_mask 通过实验检查后会出现在这里（F8；文件夹 {folder}）",
    ),
    "tl-own-not-passing": L(
        "your file changed since it passed its check: check it again in the code lab (F8)",
        "你的文件在通过检查后改过了：请在代码实验中重新检查（F8）",
    ),
    "tl-attn-title": L("What each model looks at", "每个模型在看哪里"),
    "tl-attn-keys": L(
        "←/→ model · ↑/↓ row · l layer · h head (mean, then each) · p another text",
        "←/→ 换模型 · ↑/↓ 选行 · l 换层 · h 换头（先平均，再逐个）· p 换一句",
    ),
    "tl-attn-mask": L("right: the mask it was trained with", "右边：它训练时用的掩码"),
    "tl-attn-legend": L(
        "left: attention weights, row = the position that looks, column = the one looked at: "
        "█≥50%  ▓≥25%  ▒≥10%  ░>0  ·=exactly 0 · ▶ the row you picked ◆ the row that answers",
        "左边：注意力权重，行 = 去看的位置，列 = 被看的位置：█≥50%  ▓≥25%  ▒≥10%  ░>0 "
        " ·=恰好为 0 · ▶ 你选的行 ◆ 给出答案的行",
    ),
    "tl-attn-looks": L(
        "row {row} ({token}) puts {left} on its left, {right} on its right; most on {top}",
        "第 {row} 行（{token}）左边占 {left}，右边占 {right}；最看重 {top}",
    ),
    "tl-attn-top": L("{token}({column}) {weight}", "{token}（{column}）{weight}"),
    "tl-start": L("Train", "训练"),
    "tl-cancel": L("Cancel", "取消"),
    "tl-probe-placeholder": L(
        "probe: a beginning to continue, or a sentence with one _ blank",
        "探测：输入开头让模型续写，或带一个 _ 空位的句子",
    ),
    "tl-ready": L("ready", "就绪"),
    "tl-pick-one": L("tick at least one objective", "请至少勾选一个训练目标"),
    "tl-bad-steps": L("steps: a whole number from 1 to {most}", "步数：1 到 {most} 的整数"),
    "tl-class-off": L(
        "Training is off on the class server (your teacher turns it on); the table shows the reference run.",
        "班级服务器上的训练已关闭（由老师开启）；表格显示的是参考运行的结果。",
    ),
    "tl-class-budget": L(
        "In this class a run is at most {steps} steps per objective.", "本班每个目标最多训练 {steps} 步。"
    ),
    "tl-class-queue": L(
        "Waiting for a free training slot (others in the class are training)…",
        "正在等待空闲的训练位置（班里其他同学正在训练）……",
    ),
    "tl-preparing": L("generating the text …", "正在生成文本……"),
    "tl-training": L("training {objective} · loss {loss}", "正在训练 {objective} · 损失 {loss}"),
    "tl-cancelling": L("cancelling …", "正在取消……"),
    "tl-cancelled": L(
        "cancelled after {seconds} s: no table (a partly trained model would mislead)",
        "已在 {seconds} 秒后取消：不出表（训练一半的模型会误导人）",
    ),
    "tl-done": L("done in {seconds} s: the table is below", "完成，用时 {seconds} 秒：结果表在下方"),
    "tl-failed": L("training failed: {error}", "训练失败：{error}"),
    "tl-own-failed": L(
        "done in {seconds} s; a run from code failed: why is under the table",
        "完成，用时 {seconds} 秒；有一次用代码构建批次的训练失败了：原因见表格下方",
    ),
    "tl-train-first": L("train first: there are no models to probe yet", "请先训练：还没有可探测的模型"),
    "tl-rules-title": L("The toy language's rules:", "玩具语言的规则："),
    "probe-top": L(
        "its {count} likeliest for the blank: {tokens}", "它对这个空最看好的 {count} 个：{tokens}"
    ),
    "probe-scored": L(
        "scoring every candidate sentence instead: {token} ({passes} forward passes, one per ordinary "
        "token of the vocabulary; the table's blanks are always measure words, so it tries only those "
        "{choices}: {choices} passes)",
        "改为给每个候选句子打分：{token}（{passes} 次前向计算，词表里每个普通 token 各一次；"
        "表里的空总是量词，所以只试那 {choices} 个：{choices} 次）",
    ),
    # The app never misleads (h5, issue 11)
    "palette-placeholder": L(
        "Lesson, exercise or term: id or title, in English or Chinese…",
        "课程、练习或术语：编号或标题，中文或英文均可…",
    ),
    "key-close": L("Close", "关闭"),
    "palette-theme": L("Theme", "主题"),
    "palette-theme-help": L("Change the colours (also Ctrl+T)", "换一套配色（也可按 Ctrl+T）"),
    "palette-quit-help": L("Leave the tutor (Ctrl+Q); progress is saved", "退出（Ctrl+Q）；进度已保存"),
    "palette-help-help": L("Every key (F1 or ?)", "所有按键（F1 或 ?）"),
    "attempt-title": L("{exercise} · variant {seed} · {when}", "{exercise} · 变体 {seed} · {when}"),
    "attempt-score": L("Score: {score}", "得分：{score}"),
    "attempt-given": L("Your answer", "你的答案"),
    "attempt-solution": L("The engine's solution", "引擎给出的答案"),
    "attempt-feedback": L("Feedback", "反馈"),
    "attempt-misconceptions": L("Misconceptions", "误区"),
    "attempt-none": L("none recognised", "未发现"),
    "attempt-empty-part": L("(empty)", "（空）"),
    "attempt-waiting": L(
        "The engine is still loading: press Enter again in a moment.", "引擎仍在加载：稍后再按一次回车。"
    ),
    "attempt-gone": L("This exercise no longer exists: {error}", "这道练习已不存在：{error}"),
    "attempt-open": L("Enter: open the attempt", "回车：查看这次作答"),
    "course-progress": L(
        "Course: {lessons}/{lessons_total} lessons done · {solved}/{total} exercises solved · {mastered} mastered",
        "课程进度：完成 {lessons}/{lessons_total} 课 · 做对 {solved}/{total} 题 · 掌握 {mastered} 题",
    ),
    "key-next-lesson": L("Next lesson", "下一课"),
    "glossary-title": L("Glossary", "术语表"),
    "key-glossary": L("Glossary", "术语"),
    "palette-term": L("Term", "术语"),
    "lesson-done": L(
        "Every exercise of this lesson is solved. Ctrl+N: the next lesson, {title}.",
        "本课练习全部做对了。Ctrl+N：下一课「{title}」。",
    ),
    "lesson-done-last": L(
        "Every exercise of the last lesson is solved: that is the whole course.",
        "最后一课的练习也全部做对了：整门课都学完了。",
    ),
    "lesson-done-last-unfinished": L(
        "Every exercise of the last lesson is solved. Lessons still to finish: {n}, the first"
        ' "{title}" (on the home screen).',
        "最后一课的练习全部做对了。还有 {n} 课没有完成，第一课是「{title}」（在首页）。",
    ),
    "palette-language-help": L("Switch the language (Ctrl+L)", "切换语言（Ctrl+L）"),
    # -- h1, session 3 (issue 10): the help screen's tables, made from the bindings --
    "help-title": L("Keys", "按键"),
    "help-exam-title": L("Exam keys", "考试按键"),
    "help-key": L("key", "按键"),
    "help-does": L("what it does", "作用"),
    "help-everywhere": L("Everywhere", "任何地方"),
    "help-home": L(
        "On the home screen ↑ ↓ choose a lesson and Enter opens it.", "在首页用 ↑ ↓ 选择一课，回车打开。"
    ),
    "help-lessons": L("In a lesson (and its pages)", "在课程中（及其各页面）"),
    "help-practice": L("Practice", "练习"),
    "help-practice-note": L(
        "Type each part; Enter moves to the next empty part and checks when all are filled. "
        "The letter keys work once Esc has left the text box. Multiple choice: type the letter. "
        "A wrong cell of a mask matrix shows your value and the right one (1→0). Reflection: "
        "write, press Enter, then mark yourself with y / p / x.",
        "逐项填写；回车跳到下一个空项，全部填完后提交。按 Esc 离开输入框后字母键才起作用。"
        "选择题直接输入字母。掩码矩阵中错的格子会显示你的值和正确的值（1→0）。"
        "反思题：写完按回车，再用 y / p / x 给自己打分。",
    ),
    "help-figures": L("Live figures", "实时图"),
    "help-figure": L("Live figure: {title}", "实时图：{title}"),
    "help-figure-note": L(
        "Each figure lists its keys on its first line. Positions count from 0, as in the lessons; "
        "in masks 1 = blocked. Predict, then reveal: the figure first asks what it is about to show "
        "(which positions a row sees, which enter the loss, how a target starts, where the loss "
        "begins), hides it, and marks your answer when you press Enter (Esc skips).",
        "每个图的第一行都列出了它的按键。位置从 0 开始计数，与讲义一致；掩码中 1 = 被遮盖。"
        "先预测再揭晓：图先问你它马上要显示什么（某一行能看到哪些位置、哪些位置参与损失、"
        "目标序列怎样开头、损失从哪里开始），先把答案藏起来，按回车后对照标出你的预测（Esc 跳过）。",
    ),
    "help-lab": L("Code lab", "代码实验"),
    "help-review": L("Review", "复习"),
    "help-exam": L("In the exam", "考试中"),
    "help-exam-note": L(
        "Multiple choice: type the letter. Answers are saved as you type; quitting keeps them and "
        "the clock keeps running. There is no feedback, hint or solution until you submit.",
        "选择题直接输入字母。答案随输随存；退出后答案仍在，计时继续。交卷前没有反馈、提示或答案。",
    ),
    "key-name-enter": L("Enter", "回车"),
    "key-name-space": L("Space", "空格"),
    "key-theme": L("Theme", "主题"),
    "key-focus-next": L("Next box or button", "下一个输入框或按钮"),
    "key-focus-previous": L("Previous box or button", "上一个输入框或按钮"),
    "key-code-lab": L("Code lab: write this lesson in torch", "代码实验：用 torch 写出本课"),
    "key-move-cell": L("Move between cells", "在格子之间移动"),
    "key-exam-enter": L("Next part; after the last part, the next question", "下一项；最后一项之后到下一题"),
    "key-length": L("Sequence length − / +", "序列长度 − / +"),
    "key-scaling": L("The 1/√d scaling on / off", "开关 1/√d 缩放"),
    "key-reseed": L("Another seed", "换一个种子"),
    "key-p": L("Masking probability p − / +", "遮盖概率 p − / +"),
    "key-batch": L("Batch size − / +", "批大小 − / +"),
    "key-resample": L("Draw again", "重新抽样"),
    "key-wrap": L("Wrap in [CLS] … [SEP]", "加上 [CLS] … [SEP]"),
    "key-density": L("Noise density − / +", "噪声比例 − / +"),
    "key-mean": L("Mean span length − / +", "平均片段长度 − / +"),
    "key-kind-causal": L("Causal mask", "因果掩码"),
    "key-kind-bidirectional": L("Bidirectional mask", "双向掩码"),
    "key-kind-prefix": L("Prefix-LM mask", "前缀语言模型掩码"),
    "key-prefix": L("Prefix length − / +", "前缀长度 − / +"),
    "key-random-cut": L("Cut the text at random (as T5)", "随机切分文本（同 T5）"),
    # issue 24: the subwords and packing figures' controls
    "key-vocab": L("Vocabulary size − / +", "词表大小 − / +"),
    "key-window": L("Window length L − / +", "窗口长度 L − / +"),
    "key-shuffle": L("Shuffle the documents", "打乱文档顺序"),
    "key-in-order": L("Documents in the order typed", "按输入顺序排列文档"),
    "key-drop": L("Drop or pad the last, short window", "丢掉或补齐最后不足的窗口"),
    "key-row": L("Pick a row: what it sees", "选一行：看它能看到什么"),
    "key-pan": L("Scroll the grid sideways (the row numbers stay)", "左右滚动网格（行号不动）"),
    "key-train": L("Train", "训练"),
    "key-cancel": L("Cancel", "取消"),
    "key-probe-box": L("Go to the probe box", "跳到探针输入框"),
    "key-attention-model": L("Attention of the previous / next model", "上一个 / 下一个模型的注意力"),
    "key-attention-row": L("Query row up / down", "查询行上移 / 下移"),
    "key-attention-layer": L("Next layer", "下一层"),
    "key-attention-head": L("Heads averaged, then each head in turn", "各头平均，然后逐个头"),
    # -- h1, session 3 (issue 11.9): a usage error's one line, and our refusals of values
    # (argparse's own sentences are ARGPARSE's, below).
    "usage-line": L("{prog}: {message} (see --help)", "{prog}：{message}（见 --help）"),
    "usage-whole-number": L("not a whole number: {value}", "不是整数：{value}"),
    "usage-number": L("not a number: {value}", "不是数：{value}"),
    "usage-positions": L("expected positions like 2,5, got {value}", "应为像 2,5 这样的位置，收到 {value}"),
    "usage-spans": L(
        "expected spans like 2:5,7:8 (end exclusive), got {value}",
        "应为像 2:5,7:8 这样的片段（不含结尾），收到 {value}",
    ),
    # -- issue 22: the command line's rules, one for every command (tui/commands/arguments.py)
    "usage-out-of-range": L(
        "must be from {low} to {high}, got {value}", "必须在 {low} 到 {high} 之间，收到 {value}"
    ),
    "usage-out-of-range-cases": L(
        "must be from {low} to {high}, got {value} ({cases})",
        "必须在 {low} 到 {high} 之间，收到 {value}（{cases}）",
    ),
    "usage-too-long": L("at most {limit} characters, got {count}", "最多 {limit} 个字符，收到 {count} 个"),
    "usage-too-many": L("at most {limit} values, got {count}", "最多 {limit} 个值，收到 {count} 个"),
    "usage-blank": L("the text is empty", "文本为空"),
    "usage-twice": L("given more than once", "只能给出一次"),
    "usage-not-applicable": L("{option} applies to {where} only", "{option} 只适用于：{where}"),
    "usage-not-utf8": L(
        "word {index} is not UTF-8 text: {value}", "第 {index} 个参数不是 UTF-8 文本：{value}"
    ),
    "usage-answer-form": L("expected PART=TEXT, got {value}", "应为 部分=文本（PART=TEXT），收到 {value}"),
    "usage-answer-twice": L("--answer {part} given more than once", "--answer {part} 只能给出一次"),
    "usage-no-answer": L(
        "give at least one --answer PART=TEXT (parts: {parts})",
        "请至少给出一个 --answer 部分=文本（部分：{parts}）",
    ),
    # -- h1, session 3 (issue 11.9): the command line's own refusals in the learner's language
    "train-bad-device": L("--device must be cpu or cuda", "--device 只能是 cpu 或 cuda"),
    "probe-empty": L("the prompt is empty", "提示为空"),
    "probe-too-long": L(
        "the prompt is too long (at most {limit} characters)", "提示太长（最多 {limit} 个字符）"
    ),
    "lab-unknown-action": L(
        "unknown action {action}; use {actions} (a folder: --dir DIR)",
        "未知操作 {action}；可用 {actions}（指定文件夹：--dir 文件夹）",
    ),
    "lab-did-you-mean": L(" (did you mean {action}?)", "（是不是想输入 {action}？）"),
    "lab-two-folders": L(
        "two folders given ({a} and --dir {b}): name one", "给了两个文件夹（{a} 和 --dir {b}）：只能指定一个"
    ),
    "lab-name-the-task": L(
        "name the task, e.g. `lab {action} bert_mask`", "请指明题目，例如 `lab {action} bert_mask`"
    ),
    "progress-one-output": L("choose one of --json, --csv, --reset", "--json、--csv、--reset 只能选一个"),
    "progress-reset-needs-yes": L(
        "confirm with --yes (there is no terminal to ask)", "请加 --yes 确认（没有终端可以询问）"
    ),
    # -- classroom: a lab task in a quiz (h2, issue 13) ----------------------------------------------
    "exam-lab-file": L("Your file (path, then Enter):", "你的文件（输入路径后回车）："),
    "exam-lab-attach": L("Attach / re-check", "附上 / 重新读取"),
    "exam-lab-none": L(
        "No file attached yet. Write the function in your editor, save, then attach the file here.",
        "还没有附上文件。在编辑器里写好函数并保存，再在这里附上文件。",
    ),
    "exam-lab-attached": L(
        "Attached: {path} · {size} bytes · {lines} lines · read at {at}",
        "已附上：{path} · {size} 字节 · {lines} 行 · 读取于 {at}",
    ),
    "exam-lab-saved": L(
        "Attached earlier: {size} bytes · {lines} lines (Ctrl+R reads the file again)",
        "之前已附上：{size} 字节 · {lines} 行（Ctrl+R 重新读取文件）",
    ),
    "exam-lab-readable": L(
        "Python can read it. It is checked after you submit.", "Python 能读懂它。交卷后才检查对错。"
    ),
    "exam-lab-kept": L("The file attached before is kept.", "之前附上的文件仍然保留。"),
    "exam-lab-function": L("Write: {signature}", "要写的函数：{signature}"),
    "exam-enter-lab": L(
        "Enter: attach · Ctrl+R: re-read · PgDn/PgUp: question · Ctrl+S: submit",
        "回车：附上文件 · Ctrl+R：保存后重新读取 · PgDn/PgUp：换题 · Ctrl+S：交卷",
    ),
    "exam-lab-checking": L(
        "Checking your code-lab files in the sandbox…", "正在沙箱里检查你的代码实验文件……"
    ),
    "key-recheck": L("Re-read file", "重读文件"),
    "quiz-lab-rule": L("q{n}: {rule}", "第{n}题：{rule}"),
    "quiz-grace-bad": L(
        "the grace must be a number of minutes from 0 to 1440, not {value!r}",
        "宽限必须是 0 到 1440 之间的分钟数，而不是 {value!r}",
    ),
    "exam-result-line": L("{n}. {title}: {score}", "{n}. {title}：{score}"),
    "exam-result-part": L("{label}: {feedback}", "{label}：{feedback}"),
    # -- h3 app (issue 11 remainder, session 3): continue, review schedule, predictions --
    # The variant in parentheses: an exercise's title may end in "?" / "？", and a comma after it reads as a typo.
    "continue-exercise": L("{tab}: {exercise} (variant {seed})", "{tab}：{exercise}（变体 {seed}）"),
    "key-predict": L("Predict", "预测"),
    "key-edit": L("Type", "输入"),
    "predict-title": L("Predict, then reveal", "先预测，再揭晓"),
    "predict-enter": L("Enter: reveal · Esc: skip", "回车：揭晓 · Esc：跳过"),
    "predict-yours": L("your guess", "你的预测"),
    "predict-guess": L("your guess: {guess}", "你的预测：{guess}"),
    "predict-skip": L("Skip", "跳过"),
    "predict-placeholder": L("your prediction…", "你的预测…"),
    "predict-missed": L("in the loss", "参与损失"),
    "predict-column": L("guess", "预测"),
    "predict-cells": L(
        "Your guess, cell by cell: ! you said it sees a blocked position, ? you left out a visible one.",
        "逐格对照你的预测：! 表示你说能看到但其实被遮盖，? 表示能看到但你漏掉了。",
    ),
    "progress-predicted": L(" · predicted {right}/{made}", " · 预测 {right}/{made}"),
    "when-today": L("later today", "今天晚些时候"),
    "when-tomorrow": L("tomorrow", "明天"),
    "when-days": L("in {days} days", "{days} 天后"),
    "review-schedule-now": L("Due now: {n}", "现在到期：{n} 题"),
    "review-schedule-later": L("{when}: {n}", "{when}：{n} 题"),
    "review-schedule-none-now": L("Nothing due now", "现在没有到期的题"),
    "review-try": L(
        "Enter or t: a new variant now, due or not (it counts in the schedule)",
        "回车或 t：现在就做一道新变体，不必等到期（计入复习计划）",
    ),
    "key-try-now": L("Try another now", "现在再试"),
    "theme-search": L("Search for a theme…", "搜索配色主题…"),
    "palette-no-matches": L("Nothing found", "没有找到"),
    "review-gone": L(
        "{exercise} is no longer in the course: nothing to try", "{exercise} 已不在课程里：无法再做"
    ),
    "home-review-next": L(
        "Review: nothing due now · next {when} ({n})", "复习：现在没有到期 · 下一批：{when}，{n} 题"
    ),
    # -- h6: the class server's web half (tui/classweb, class serve, class dashboard) --
    "class-web-title": L("objectives-tutor · class", "objectives-tutor · 课堂"),
    "class-web-other-language": L("中文", "English"),
    "class-web-student-id": L("Student id", "学号"),
    "class-web-pin": L("PIN", "PIN 码"),
    "class-web-sign-in": L("Sign in", "登录"),
    "class-web-sign-out": L("Sign out", "退出登录"),
    "class-web-reload": L("Sign in again", "重新登录"),
    "class-web-closed": L("The connection to the class server closed.", "与班级服务器的连接已关闭。"),
    "class-web-dropped": L(
        "The connection was lost or the app ended; your session goes on and your answers are saved.",
        "连接中断或应用已结束；你的会话仍然有效，答案都已保存。",
    ),
    "class-web-reconnect": L("Reconnect", "重新连接"),
    "class-web-bad-sign-in": L("That id and PIN do not match.", "学号与 PIN 码不匹配。"),
    "class-web-too-soon": L(
        "Wrong PINs were typed for this id: try again in {seconds} s (your teacher can clear them).",
        "这个学号刚输错过 PIN 码：请 {seconds} 秒后再试（老师可以清除）。",
    ),
    "class-web-not-signed-in": L(
        "This browser is not signed in (the server knows no session for it). Reload the page to sign in.",
        "这个浏览器未登录（服务器没有它的会话）。请刷新页面登录。",
    ),
    "class-web-cross-site": L(
        "This sign-in came from another site's page: open this server's own address and sign in there.",
        "这次登录来自别的网站的页面：请打开本服务器自己的地址再登录。",
    ),
    "class-web-busy": L(
        "Many sign-ins at once from your network: try again in a few seconds.",
        "你所在网络同时登录的人太多：请几秒后再试。",
    ),
    "class-web-bad-form": L("Enter your student id and PIN.", "请输入学号和 PIN 码。"),
    "class-web-who": L("{name} ({student}) · signed in", "{name}（{student}）· 已登录"),
    "class-session-ended": L(
        "This session has ended ({reason}). Reload the page to sign in again.",
        "本次会话已结束（{reason}）。请刷新页面重新登录。",
    ),
    "class-reason-signed-in-elsewhere": L("you signed in somewhere else", "你在别处登录了"),
    "class-reason-signed-out": L("you signed out", "你已退出登录"),
    "class-reason-ended-by-teacher": L("your teacher signed you out", "老师让你退出了登录"),
    "class-reason-expired": L("it was idle too long", "闲置时间过长"),
    "class-reason-other": L("the server ended it", "服务器结束了它"),
    "serve-not-installed": L(
        "the browser server is the optional 'serve' extra: pip install -e '.[serve]'",
        "浏览器服务器属于可选的 serve 附加组件：pip install -e '.[serve]'",
    ),
    "serve-warning": L(
        "warning: listening on {host}: anyone who can reach this machine can open the app",
        "警告：正在监听 {host}：能访问本机的任何人都能打开本应用",
    ),
    "class-serve-urls": L("Students open:", "学生打开："),
    "class-serve-warning": L(
        "warning: listening on {host}: anyone who can reach this machine can open the sign-in page",
        "警告：正在监听 {host}：能访问本机的任何人都能打开登录页",
    ),
    "class-serve-stop": L("Press Ctrl+C to stop the server.", "按 Ctrl+C 停止服务器。"),
    "class-no-lab": L(
        "The code lab checks files on your own computer: install the app there and run objectives-tutor lab init.",
        "代码实验检查的是你自己电脑上的文件：请在自己电脑上安装本应用并运行 objectives-tutor lab init。",
    ),
    "dash-title": L("Class dashboard", "课堂看板"),
    "dash-col-student": L("Student", "学号"),
    "dash-col-name": L("Name", "姓名"),
    "dash-col-where": L("Where", "位置"),
    "dash-col-solved": L("Solved", "做对"),
    "dash-col-exam": L("Quiz", "测验"),
    "dash-col-left": L("Left", "剩余"),
    "dash-col-students": L("Students", "人数"),
    "dash-col-attempts": L("Attempts", "次数"),
    "dash-col-exercise": L("Exercise", "练习"),
    "dash-col-misconception": L("Misconception", "误区"),
    "dash-col-seen": L("Seen in", "出现于"),
    "dash-seen-quiz": L("quiz", "测验"),
    "dash-seen-practice": L("practice", "练习"),
    "dash-col-who": L("Id typed", "输入的学号"),
    "dash-col-failures": L("Wrong", "错误次数"),
    "dash-col-source": L("From", "来源"),
    "dash-col-wait": L("Next try", "下次尝试"),
    "dash-wait": L("waits {seconds} s", "需等 {seconds} 秒"),
    "dash-sign-ins": L("Failed sign-ins (u: unlock the selected student)", "登录失败（u：为选中的学生解除）"),
    "dash-histograms": L("Scores in the quiz", "测验得分分布"),
    "dash-histogram-class": L(
        "The class ({count} who started), by percent:", "全班（{count} 人已开始），按百分比："
    ),
    "dash-no-grades": L("No answers graded yet.", "还没有可以评分的答案。"),
    "dash-q-zero": L("none", "零分"),
    "dash-q-some": L("part", "部分"),
    "dash-q-full": L("full", "满分"),
    "dash-misconceptions": L("Misconceptions in the last {minutes} minutes", "最近 {minutes} 分钟出现的误区"),
    "dash-no-quiz": L("No quiz is open. o: open one", "当前没有开放的测验。o：开放一份"),
    "dash-quiz-closed": L(
        "{name} (closed) · {limit} · started {started}/{total} · submitted {submitted}/{total} · r: release, g: gradebook",
        "{name}（已关闭）· {limit} · 已开始 {started}/{total} · 已提交 {submitted}/{total} · r：公布成绩，g：成绩册",
    ),
    "dash-results-released": L("results released", "成绩已公布"),
    "dash-quiz": L(
        "Quiz {name} · {limit} · started {started}/{total} · submitted {submitted}/{total}",
        "测验 {name} · {limit} · 已开始 {started}/{total} · 已提交 {submitted}/{total}",
    ),
    "dash-limit": L("{minutes} min", "限时 {minutes} 分钟"),
    "dash-no-limit": L("no time limit", "不限时"),
    "dash-in-exam": L("in the quiz", "测验中"),
    "dash-home": L("home", "首页"),
    "dash-exam-not-started": L("not started", "未开始"),
    "dash-exam-in-progress": L("answering", "作答中"),
    "dash-exam-submitted": L("submitted", "已提交"),
    "dash-exam-time-up": L("time up", "时间到"),
    "dash-exam-quiz-closed": L("closed", "已关闭"),
    "dash-quiz-path": L("Quiz file (TOML):", "测验文件（TOML）："),
    "dash-opened": L("Opened {name}: students see only the quiz now", "已开放 {name}：学生现在只能看到测验"),
    "dash-confirm-close": L(
        "Close the quiz for everyone? Press c again (Esc: no)", "为所有人关闭测验？再按一次 c（Esc：取消）"
    ),
    "dash-closed": L("The quiz is closed: no more answers are taken", "测验已关闭：不再接收答案"),
    "dash-extended": L("{student}: {minutes} minutes in all", "{student}：共调整 {minutes} 分钟"),
    "dash-released": L("Results of {name} released to the students", "已向学生公布 {name} 的成绩"),
    "dash-exported": L("Gradebook written: {path}", "成绩册已写入：{path}"),
    "dash-grading": L("Grading the quiz…", "正在为测验评分……"),
    "dash-opening": L(
        "Opening the quiz: every student's questions are prepared…", "正在开放测验：为每位学生准备题目……"
    ),
    "dash-confirm-end": L(
        "Sign {student} out? Their tab says so; their saved answers are kept. Press x again to confirm.",
        "让 {student} 退出登录？其页面会显示这一点；已保存的答案保留。再按一次 x 确认。",
    ),
    "key-open-quiz": L("open quiz", "开放测验"),
    "key-close-quiz": L("close quiz", "关闭测验"),
    "key-extend": L("+5 min", "+5 分钟"),
    "key-release": L("release", "公布成绩"),
    "key-gradebook": L("gradebook", "成绩册"),
    "key-quiz-results": L("quiz results", "测验成绩"),
    "key-shorten": L("-5 min", "-5 分钟"),
    "key-unlock": L("unlock", "解除"),
    "key-end-session": L("sign out", "退出登录"),
    "key-panel": L("panel", "面板"),
    # -- h5: the class server's storage commands (issue 15: class init, class quiz) --
    "class-made": L(
        "{count} people added to the class in {path} (database: {db})",
        "已向 {path} 的班级加入 {count} 人（数据库：{db}）",
    ),
    "class-pin-file": L(
        "PINs in {path}: for the teacher only (mode 600); give each student only their own",
        "PIN 在 {path}：仅供教师（权限 600）；每个学生只发他自己的",
    ),
    "class-skipped": L(
        "{count} roster students were already in the class: their PINs are unchanged",
        "名单中有 {count} 名学生已在班级里：他们的 PIN 不变",
    ),
    "class-quiz-opened": L(
        "quiz {number} ({name}) is open: {students} students, {questions} questions each, time limit {limit}",
        "测验 {number}（{name}）已开放：{students} 名学生，每人 {questions} 题，限时 {limit}",
    ),
    "class-no-limit": L("none", "无"),
    "class-minutes": L("{minutes} min", "{minutes} 分钟"),
    "class-no-student": L(
        "no single student of this class matches {student!r} (type the id as the roster has it)",
        "这个班级里没有唯一对应 {student!r} 的学生（请按名单上的学号原样输入）",
    ),
    "class-no-open-quiz": L("no quiz is open", "当前没有开放的测验"),
    "class-quiz-closed": L(
        "quiz {number} ({name}) is closed: {started} started, {submitted} submitted",
        "测验 {number}（{name}）已关闭：{started} 人开始，{submitted} 人提交",
    ),
    "class-extended": L(
        "{student}: {minutes} minutes in all in the open quiz (negative: taken back)",
        "{student}：在当前测验中共调整 {minutes} 分钟（负数为收回的时间）",
    ),
    "class-left": L("{minutes}:{seconds:02d} left", "剩余 {minutes}:{seconds:02d}"),
    "class-unlocked": L(
        "{who}: earlier wrong PINs no longer slow sign-in down", "{who}：之前输错的 PIN 码不再拖慢登录"
    ),
    "class-no-failures": L(
        "no failed sign-ins in the last {minutes} minutes", "最近 {minutes} 分钟没有登录失败"
    ),
    "class-slowed": L(
        "{who}: {failures} wrong tries; the next waits {wait} s (class unlock {who} to forget them)",
        "{who}：输错 {failures} 次；下一次需等 {wait} 秒（class unlock {who} 可清除）",
    ),
    "sign-in-unknown": L("no such id", "没有这个学号"),
    "sign-in-bad-pin": L("wrong PIN", "PIN 码错误"),
    "sign-in-too-soon": L("too soon after wrong PINs (not checked)", "输错后过早重试（未检查）"),
    "class-session-ended-by-teacher": L(
        "{student} is signed out: their tab says so", "{student} 已被退出登录：其页面会显示这一点"
    ),
    "class-not-signed-in": L("{student} is not signed in", "{student} 当前未登录"),
    "class-settings": L(
        "training lab on the server: {training} · at most {steps} steps per objective · {slots} at once per host",
        "服务器上的训练实验：{training} · 每个目标最多 {steps} 步 · 每台主机同时 {slots} 个",
    ),
    "class-training-off": L("off", "关闭"),
    "class-training-on": L("on", "开启"),
    "class-released": L(
        "results of quiz {number} ({name}) are released to the students",
        "测验 {number}（{name}）的成绩已向学生公布",
    ),
    "class-no-quizzes": L("this class has no quiz yet", "这个班级还没有测验"),
    "class-state-open": L("open", "进行中"),
    "class-state-closed": L("closed", "已关闭"),
    "class-state-released": L("results released", "成绩已公布"),
    "class-quiz-line": L(
        "{number}. {name}: {state}; {started} started, {submitted} submitted",
        "{number}. {name}：{state}；{started} 人开始，{submitted} 人提交",
    ),
    "quiz-grade-needs-files": L(
        "give the quiz file and the submissions, or --class DIR to grade from the class database",
        "请给出测验文件和提交文件，或用 --class DIR 从班级数据库评分",
    ),
    # -- h7 (issues 10/11 follow-ups): the progress store's notices and the progress table --
    "store-unreadable": L(
        "{name} is not a readable progress file ({error}): kept as {aside}; starting a fresh progress file",
        "{name} 不是可读的进度文件（{error}）：已另存为 {aside}；重新开始一个进度文件",
    ),
    "store-newer": L(
        "{name} was written by a newer objectives-tutor (schema {version} > {supported}): "
        "kept as {aside}; starting a fresh progress file",
        "{name} 由更新版本的 objectives-tutor 写入（格式 {version} > {supported}）："
        "已另存为 {aside}；重新开始一个进度文件",
    ),
    "store-unavailable": L(
        "progress cannot be saved in {home} ({error}); working without saving",
        "无法在 {home} 保存进度（{error}）；本次不保存，照常学习",
    ),
    "store-unread": L("could not read progress ({error})", "无法读取进度（{error}）"),
    "progress-predictions": L("predictions right", "预测对"),
}

# argparse's own sentences (Python 3.11's Lib/argparse.py), keyed by the msgid it hands
# to gettext's ``_()``/``ngettext()``: gettext's idea, with our pairs as the catalogue.
# tui/commands/arguments.py's ``speaking`` installs them for the command line's language.
# Each English side is the msgid itself; tests/test_i18n_argparse.py reads argparse.py
# and fails on a msgid a learner can meet that is missing here (a new Python's, say).
ARGPARSE: dict[str, Bilingual] = {
    "usage: ": L("usage: ", "用法："),
    "positional arguments": L("positional arguments", "位置参数"),
    "options": L("options", "选项"),
    "show this help message and exit": L("show this help message and exit", "显示此帮助信息并退出"),
    "%(prog)s: error: %(message)s\n": L("%(prog)s: error: %(message)s\n", "%(prog)s：错误：%(message)s\n"),
    "argument %(argument_name)s: %(message)s": L(
        "argument %(argument_name)s: %(message)s", "参数 %(argument_name)s：%(message)s"
    ),
    "the following arguments are required: %s": L(
        "the following arguments are required: %s", "缺少必需的参数：%s"
    ),
    "one of the arguments %s is required": L(
        "one of the arguments %s is required", "以下参数必须给出其一：%s"
    ),
    "unrecognized arguments: %s": L("unrecognized arguments: %s", "无法识别的参数：%s"),
    "ambiguous option: %(option)s could match %(matches)s": L(
        "ambiguous option: %(option)s could match %(matches)s", "选项 %(option)s 有歧义，可能是 %(matches)s"
    ),
    "unexpected option string: %s": L("unexpected option string: %s", "意外的选项：%s"),
    "invalid choice: %(value)r (choose from %(choices)s)": L(
        "invalid choice: %(value)r (choose from %(choices)s)", "无效的选择 %(value)r（可选：%(choices)s）"
    ),
    "unknown parser %(parser_name)r (choices: %(choices)s)": L(
        "unknown parser %(parser_name)r (choices: %(choices)s)",
        "未知的子命令 %(parser_name)r（可选：%(choices)s）",
    ),
    "invalid %(type)s value: %(value)r": L(
        "invalid %(type)s value: %(value)r", "无效的 %(type)s 值：%(value)r"
    ),
    "expected one argument": L("expected one argument", "后面需要一个值"),
    "expected at most one argument": L("expected at most one argument", "后面最多只能有一个值"),
    "expected at least one argument": L("expected at least one argument", "后面至少需要一个值"),
    "expected %s argument": L("expected %s argument", "后面需要 %s 个值"),  # ngettext: the singular
    "expected %s arguments": L("expected %s arguments", "后面需要 %s 个值"),  # and the plural
    "not allowed with argument %s": L("not allowed with argument %s", "不能与 %s 同时使用"),
    "ignored explicit argument %r": L("ignored explicit argument %r", "不接受值 %r"),
    "can't open '%(filename)s': %(error)s": L(
        "can't open '%(filename)s': %(error)s", "无法打开 '%(filename)s'：%(error)s"
    ),
}


def t(key: str, lang: str, **params: object) -> str:
    """The message ``key`` in ``lang``, its ``{params}`` filled in."""
    return pick(MESSAGES[key], lang).format(**params)


def notice_text(notice: object, lang: str) -> str:
    """A progress store's notice (``exercises.learner.store.Notice``: a key of MESSAGES and
    its parameters) in the learner's language. A plain string passes through as it is:
    the class database's learner store still reports in English."""
    key = getattr(notice, "key", None)
    if key is None:
        return str(notice)
    return t(key, lang, **notice.params)


def error_text(error: Exception, lang: str) -> str:
    """One line for the learner: the engine's error in their language (engine/errors.py
    holds each code's sentence in both); any other error's own text."""
    from engine.errors import InvalidInput  # here: `--help` imports nothing of the engine

    if isinstance(error, InvalidInput):
        return error.said(lang)
    return str(error)
