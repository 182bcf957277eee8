"""Bilingual strings: every learner-facing string exists in zh and en."""

from __future__ import annotations

import errno
from collections.abc import Iterable

LANGS = ("zh", "en")

Bilingual = dict[str, str]


def L(en: str, zh: str) -> Bilingual:
    """A string in both languages (English first, as the code reads)."""
    return {"en": en, "zh": zh}


def pick(text: Bilingual, lang: str) -> str:
    return text.get(lang) or text["en"]


LIST_SEPARATOR = L(", ", "、")


def listing(items: Iterable[object], lang: str = "en") -> str:
    """Values as a sentence lists them: "1, 3, 7" in English, "1、3、7" in Chinese."""
    return pick(LIST_SEPARATOR, lang).join(map(str, items))


def fmt(text: Bilingual, **params: object) -> Bilingual:
    """Fill the same parameters into both languages."""
    return {lang: value.format(**params) for lang, value in text.items()}


def join(*texts: Bilingual, sep: str = " ") -> Bilingual:
    return {lang: sep.join(text[lang] for text in texts if text.get(lang)) for lang in LANGS}


# Why an operating-system call failed. Python has only the OS's English text (strerror),
# and a Chinese message must not switch to English halfway: the usual reasons in zh.
_OS_REASONS_ZH = {
    errno.ENOENT: "没有这个文件或文件夹",
    errno.EACCES: "没有权限",
    errno.EPERM: "不允许这样操作",
    errno.EISDIR: "这是文件夹",
    errno.ENOTDIR: "路径中有一段不是文件夹",
    errno.EEXIST: "已经存在",
    errno.ENOSPC: "磁盘空间不足",
    errno.EDQUOT: "超出磁盘配额",
    errno.EROFS: "文件系统是只读的",
    errno.ENAMETOOLONG: "名字太长",
    errno.EMFILE: "打开的文件太多",
    errno.EIO: "输入/输出错误",
    errno.EADDRINUSE: "端口已被占用",
    errno.EADDRNOTAVAIL: "这个地址不属于本机",
}
_CANNOT = {
    "read": L("cannot read {path}: {why}", "无法读取 {path}：{why}"),
    "write": L("cannot write {path}: {why}", "无法写入 {path}：{why}"),
    "make": L("cannot make {path}: {why}", "无法创建 {path}：{why}"),
    "use": L("cannot use {path}: {why}", "无法使用 {path}：{why}"),
}


def reason_of(error: Exception) -> Bilingual:
    """Why reading or writing a file failed, in both languages: the OS's reason (its English
    text, and ours in zh), "not UTF-8 text", or the error's own text for anything else."""
    if isinstance(error, UnicodeError):
        return L("not UTF-8 text", "不是 UTF-8 文本")
    if isinstance(getattr(error, "why", None), dict):  # exercises.files.FileRefused says it in both
        return error.why
    if isinstance(error, OSError) and error.strerror:
        return L(error.strerror, _OS_REASONS_ZH.get(error.errno, error.strerror))
    return L(str(error), str(error))


def cannot(action: str, path: object, error: Exception) -> Bilingual:
    """ "cannot read/write/make PATH: why", in both languages (``action``: read, write, make, use)."""
    why = reason_of(error)
    return {lang: _CANNOT[action][lang].format(path=path, why=why[lang]) for lang in LANGS}
