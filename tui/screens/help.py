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
in masks 1 = blocked.
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

**实时图。** 每个图的第一行都列出了它的按键：`-`/`+` 调长度、p 或噪声比例，`[`/`]` 调批次、前缀或平均片段长度，`r` 重新抽样，`d` 切换 1/sqrt(d) 缩放，`w` 加上 [CLS]…[SEP]，`c`/`b`/`p` 切换掩码类型，↑/↓ 选行。位置从 0 开始计数，与讲义一致；掩码中 1 = 被遮盖。
""",
}


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen VerticalScroll { width: 90%; max-width: 96; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,f1,question_mark,q", "dismiss", "close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP.get(self.app.lang, HELP["en"]))
