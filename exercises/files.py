"""Reading a file someone else made: a submission, a handout, a teacher file, a roster,
a learner's lab file. Only a regular file is read, and only up to a size: a FIFO named
``alice.json`` among the submissions would block the reader for ever (``open`` waits
for a writer) and ``/dev/zero`` never ends. The file is opened without blocking,
checked with ``fstat`` on the descriptor (what is read is what was checked, not a name
swapped in between), then read up to the limit. Torch-free, standard library only."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from exercises.text import Bilingual, L


class FileRefused(OSError):
    """Not read: not a regular file, or larger than the reader allows. ``why`` says it in
    both languages (``exercises.text.reason_of`` passes it on)."""

    def __init__(self, why: Bilingual) -> None:
        super().__init__(why["en"])
        self.strerror = why["en"]
        self.why = why


class FileTooLarge(FileRefused):
    def __init__(self, limit: int) -> None:
        super().__init__(L(f"larger than {limit:,} bytes", f"超过 {limit:,} 字节"))
        self.limit = limit


NOT_REGULAR = L("not a regular file (a pipe, a device or a socket)", "不是普通文件（而是管道、设备或套接字）")


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them. Raises
    IsADirectoryError for a folder, FileRefused for anything else that is not a regular
    file, FileTooLarge past ``limit`` (also when it grows while read), and the OS's
    OSError (no such file, not allowed) as ``open`` would."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(Path(path), flags)  # a FIFO opens at once, without a writer
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(NOT_REGULAR)
        if info.st_size > limit:
            raise FileTooLarge(limit)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise FileTooLarge(limit)
        return b"".join(chunks)
    finally:
        os.close(descriptor)
