"""F1 / ?: every key, in the learner's language."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = {
    "en": """# Keys

| key | what it does |
| --- | --- |
| ↑ ↓ Enter | choose a lesson |
| Tab / Shift+Tab | move between tabs, inputs and buttons |
| F5 F6 F7 | lesson text, live figure, practice |
| Esc | leave a text box; again: back to the lessons |
| Ctrl+P | command palette: jump to any lesson or exercise |
| Ctrl+L | 中文 / English |
| Ctrl+T | change the theme |
| F1 or ? | this help |
| Ctrl+Q | quit |

**Practice.** Type each part; Enter moves to the next empty part and checks when all are
filled. After Esc (out of the text box): `h` next hint, `s` the engine's solution, `n` a
new variant. Multiple choice: type the letter. Mask matrices: arrows move, Space toggles a
cell, Enter checks; wrong cells turn yellow. Reflection: write, press Enter, then pick
your own mark.

**Figures.** Each shows its keys on its first line: `-`/`+` length, p or noise density,
`[`/`]` batch, prefix or mean span length, `r` resample, `d` the 1/sqrt(d) scaling, `w`
[CLS]…[SEP], `c`/`b`/`p` mask kind, ↑/↓ a row. Positions count from 0, as in the lessons;
in masks 1 = blocked. `g` predict, then reveal: the figure asks what it is about to show
(which positions a row sees, which enter the loss, how a target starts, where the loss
begins), hides it, and marks your answer when you press Enter (Esc skips).
""",
    "zh": """# 按键

| 按键 | 作用 |
| --- | --- |
| ↑ ↓ 回车 | 选择一课 |
| Tab / Shift+Tab | 在标签页、输入框和按钮之间移动 |
| F5 F6 F7 | 讲解、实时图、练习 |
| Esc | 离开输入框；再按一次：回到课程列表 |
| Ctrl+P | 命令面板：跳到任意一课或练习 |
| Ctrl+L | 中文 / English |
| Ctrl+T | 切换主题 |
| F1 或 ? | 本帮助 |
| Ctrl+Q | 退出 |

**练习。** 逐项填写；回车跳到下一个空项，全部填完后提交。按 Esc 离开输入框后：`h` 下一条提示，`s` 引擎给出的答案，`n` 换一题。选择题直接输入字母。掩码矩阵：方向键移动，空格切换格子，回车提交；错的格子会变黄。反思题：写完按回车，再选择自评。

**实时图。** 每个图的第一行都列出了它的按键：`-`/`+` 调长度、p 或噪声比例，`[`/`]` 调批次、前缀或平均片段长度，`r` 重新抽样，`d` 切换 1/sqrt(d) 缩放，`w` 加上 [CLS]…[SEP]，`c`/`b`/`p` 切换掩码类型，↑/↓ 选行。位置从 0 开始计数，与讲义一致；掩码中 1 = 被遮盖。`g` 先预测再揭晓：图先问你它马上要显示什么（某一行能看到哪些位置、哪些位置参与损失、目标序列怎样开头、损失从哪里开始），先把答案藏起来，按回车后对照标出你的预测（Esc 跳过）。
""",
}


EXAM_HELP = {
    "en": """# Exam keys

| key | what it does |
| --- | --- |
| Tab / Shift+Tab | move between answer boxes and buttons |
| Enter | next part; after the last part, the next question |
| PgDn / PgUp | next / previous question (or the tabs 1…N) |
| arrows, Space | mask matrices: move, toggle a cell |
| a letter | multiple choice: choose that option |
| Ctrl+S | submit (press twice to confirm) |
| F1 or ? | this help |
| Ctrl+Q | quit: answers are saved, the clock keeps running |

Answers are saved as you type. There is no feedback, hint or solution until you submit.
""",
    "zh": """# 考试按键

| 按键 | 作用 |
| --- | --- |
| Tab / Shift+Tab | 在答题框和按钮之间移动 |
| 回车 | 下一项；最后一项之后到下一题 |
| PgDn / PgUp | 下一题 / 上一题（或点标签 1…N） |
| 方向键、空格 | 掩码矩阵：移动、切换格子 |
| 字母 | 选择题：选择该选项 |
| Ctrl+S | 交卷（按两次确认） |
| F1 或 ? | 本帮助 |
| Ctrl+Q | 退出：答案已保存，计时继续 |

答案随输随存。交卷前没有反馈、提示或答案。
""",
}


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen VerticalScroll { width: 90%; max-width: 96; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,f1,question_mark,q", "dismiss", "close")]

    def __init__(self, exam: bool = False) -> None:
        super().__init__()
        self.texts = EXAM_HELP if exam else HELP

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self.texts.get(self.app.lang, self.texts["en"]))
