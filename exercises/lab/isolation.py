"""What the operating system offers to isolate learner code, and putting it in place.

The code lab runs learner files, and ``quiz grade`` runs every student's file on the
teacher's computer, so a lab child is built as an autograder's container would be, from
what an unprivileged Linux user has (standard library and ctypes only):

- **Landlock** (Linux 5.13+): the child may read only what Python and torch need (the
  standard library, the installed torch and numpy with their dependencies, the system's
  libraries, /dev/null and /dev/urandom) and write only in its scratch folder. The
  project's own source, the workspace, the class database, the teacher's files and every
  other submission are out of reach, for root too. From ABI 4 no TCP bind or connect;
  from ABI 6 no signal to a process outside the sandbox and no abstract Unix socket.
- **seccomp**: no new process or thread (fork, vfork, clone, exec), no socket at all
  (pathname Unix sockets escape Landlock and network namespaces alike), no signal,
  priority or limit change aimed at another process, no ptrace, mount, namespace, BPF,
  keyring, SysV or POSIX IPC, io_uring, chmod, chown, utime or xattr change (Landlock
  does not cover those), and any system call newer than this table is refused.
- ``no_new_privs`` and every capability dropped; resource limits on memory, CPU time,
  open files, file size and core dumps.

``probe()`` says, in words, which of these this machine has. Where Landlock or seccomp is
missing (macOS, old kernels, some containers, other processors) the lab says so: a
learner's own file still runs, under the limits only, and ``quiz grade`` refuses other
people's files unless the teacher asks for it by name. ``confine()`` runs in the child,
after the trusted imports and before the learner's file is read, and fails closed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import platform
import re
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

from exercises.text import Bilingual, L

# Tests only: makes probe() report "not isolated" (so the refusal and the notice can be
# tested on this machine). It can only ever take isolation away, which makes `quiz grade`
# refuse; running other people's code unisolated always needs the teacher's own flag.
DISABLE_ENV = "OBJECTIVES_TUTOR_LAB_NO_ISOLATION"

SCRATCH_FILE_LIMIT = 16 << 20  # the largest file the learner's code may write (scratch only)
OPEN_FILES_LIMIT = 64  # the protocol's pipes, a few imports' files, and some to spare

# -- the kernel's interfaces -----------------------------------------------------------------

SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

PR_SET_NO_NEW_PRIVS, PR_GET_SECCOMP = 38, 21
LINUX_CAPABILITY_VERSION_3 = 0x20080522
SECCOMP_SET_MODE_FILTER, SECCOMP_GET_ACTION_AVAIL = 1, 2
SECCOMP_FILTER_FLAG_TSYNC = 1
SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ERRNO, SECCOMP_RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000

# System calls refused outright (EPERM), by name and why; a name absent from an
# architecture's table (fork on aarch64) does not exist there.
DENIED_BECAUSE = {
    # threads too: clone3 is answered ENOSYS (below), glibc falls back to clone, refused
    # here; the child is one thread, so a thread bomb ends at its first thread
    "no new process, thread or program": "fork vfork clone execve execveat",
    # every family: pathname Unix sockets are beyond Landlock and network namespaces
    "no network, no socket": "socket socketpair connect bind listen accept accept4 sendto sendmsg sendmmsg",
    "no reading, writing or steering another process": (
        "ptrace process_vm_readv process_vm_writev kcmp pidfd_open pidfd_getfd pidfd_send_signal tkill "
        "setpriority sched_setscheduler sched_setparam sched_setattr ioprio_set migrate_pages move_pages "
        "process_madvise process_mrelease"
    ),
    # io_uring among them: it makes sockets and opens files without these system calls
    "nothing system-wide": (
        "mount umount2 unshare setns chroot pivot_root move_mount open_tree open_tree_attr fsopen "
        "fsconfig fsmount fspick mount_setattr bpf perf_event_open keyctl add_key request_key reboot "
        "init_module finit_module delete_module kexec_load kexec_file_load swapon swapoff acct "
        "settimeofday clock_settime clock_adjtime adjtimex sethostname setdomainname iopl ioperm "
        "modify_ldt vhangup userfaultfd io_uring_setup io_uring_enter io_uring_register "
        "open_by_handle_at name_to_handle_at fanotify_init lookup_dcookie quotactl quotactl_fd "
        "personality lsm_set_self_attr"
    ),
    # truncate(path) is Landlock's only from ABI 3; mknod needs no more than scratch files
    "no file change Landlock does not cover (modes, owners, times, extended attributes)": (
        "chmod fchmod fchmodat fchmodat2 chown fchown lchown fchownat utime utimes futimesat utimensat "
        "setxattr lsetxattr fsetxattr removexattr lremovexattr fremovexattr setxattrat removexattrat "
        "file_setattr truncate mknod mknodat"
    ),
    # memfd pages are not in the address space until mapped, so RLIMIT_AS does not count
    # them: 928 MiB held beyond the 1 GiB limit; memfd_secret likewise
    "no memory beyond the address-space limit": "memfd_create memfd_secret",
    "no SysV or POSIX IPC (it outlives the process and reaches the teacher's own)": (
        "shmget shmat shmctl shmdt semget semop semctl semtimedop msgget msgsnd msgrcv msgctl "
        "mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr"
    ),
}
DENIED = tuple(name for names in DENIED_BECAUSE.values() for name in names.split())
SELF_ONLY = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")  # allowed at its own pid only
SELF_OR_ZERO = ("prlimit64", "sched_setaffinity")  # pid 0 is itself too
ENOSYS_CALLS = ("clone3",)
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15  # a signal to another process on I/O
FIOSETOWN, SIOCSPGRP, FIOASYNC, TIOCSTI = 0x8901, 0x8902, 0x5452, 0x5412
NEWEST_SYSCALL = 469  # file_setattr (Linux 6.17); anything newer is refused (ENOSYS)

# The numbers, checked against the kernel headers (x86_64: asm/unistd_64.h; aarch64 uses
# the generic table, asm-generic/unistd.h). Numbers from 424 on are the same everywhere.
_COMMON = {
    "pidfd_send_signal": 424,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "pidfd_open": 434,
    "clone3": 435,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "mount_setattr": 442,
    "quotactl_fd": 443,
    "memfd_secret": 447,
    "process_mrelease": 448,
    "fchmodat2": 452,
    "lsm_set_self_attr": 460,
    "setxattrat": 463,
    "removexattrat": 466,
    "open_tree_attr": 467,
    "file_setattr": 469,
}
_X86_64 = {
    "shmget": 29, "shmat": 30, "shmctl": 31, "socket": 41, "connect": 42, "accept": 43,
    "sendto": 44, "sendmsg": 46, "bind": 49, "listen": 50, "socketpair": 53, "clone": 56,
    "fork": 57, "vfork": 58, "execve": 59, "kill": 62, "semget": 64, "semop": 65, "semctl": 66,
    "shmdt": 67, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "fcntl": 72,
    "truncate": 76, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94,
    "ptrace": 101, "rt_sigqueueinfo": 129, "utime": 132, "mknod": 133, "personality": 135,
    "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144, "vhangup": 153,
    "modify_ldt": 154, "pivot_root": 155, "adjtimex": 159, "chroot": 161, "acct": 163,
    "settimeofday": 164, "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168,
    "reboot": 169, "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173,
    "init_module": 175, "delete_module": 176, "quotactl": 179, "setxattr": 188,
    "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198,
    "fremovexattr": 199, "tkill": 200, "sched_setaffinity": 203, "lookup_dcookie": 212,
    "semtimedop": 220, "clock_settime": 227, "tgkill": 234, "utimes": 235, "mq_open": 240,
    "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244,
    "mq_getsetattr": 245, "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250,
    "ioprio_set": 251, "migrate_pages": 256, "mknodat": 259, "fchownat": 260, "futimesat": 261,
    "fchmodat": 268, "unshare": 272, "move_pages": 279, "utimensat": 280, "accept4": 288,
    "rt_tgsigqueueinfo": 297, "perf_event_open": 298, "fanotify_init": 300, "prlimit64": 302,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "clock_adjtime": 305, "sendmmsg": 307,
    "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "finit_module": 313, "sched_setattr": 314, "seccomp": 317, "kexec_file_load": 320,
    "memfd_create": 319, "bpf": 321, "execveat": 322, "userfaultfd": 323, "ioctl": 16, "capset": 126,
}  # fmt: skip
_AARCH64 = {
    "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15,
    "fremovexattr": 16, "lookup_dcookie": 18, "fcntl": 25, "ioctl": 29, "ioprio_set": 30,
    "mknodat": 33, "umount2": 39, "capset": 91, "chroot": 51, "mount": 40, "pivot_root": 41, "truncate": 45, "fchmod": 52,
    "fchmodat": 53, "fchownat": 54, "fchown": 55, "vhangup": 58, "quotactl": 60, "utimensat": 88,
    "acct": 89, "personality": 92, "unshare": 97, "kexec_load": 104, "init_module": 105,
    "delete_module": 106, "clock_settime": 112, "ptrace": 117, "sched_setparam": 118,
    "sched_setscheduler": 119, "sched_setaffinity": 122, "kill": 129, "tkill": 130,
    "tgkill": 131, "rt_sigqueueinfo": 138, "setpriority": 140, "reboot": 142,
    "sethostname": 161, "setdomainname": 162, "settimeofday": 170, "adjtimex": 171,
    "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183,
    "mq_notify": 184, "mq_getsetattr": 185, "msgget": 186, "msgctl": 187, "msgrcv": 188,
    "msgsnd": 189, "semget": 190, "semctl": 191, "semtimedop": 192, "semop": 193, "shmget": 194,
    "shmctl": 195, "shmat": 196, "shmdt": 197, "socket": 198, "socketpair": 199, "bind": 200,
    "listen": 201, "accept": 202, "connect": 203, "sendto": 206, "sendmsg": 211,
    "add_key": 217, "request_key": 218, "keyctl": 219, "clone": 220, "execve": 221,
    "swapon": 224, "swapoff": 225, "migrate_pages": 238, "move_pages": 239,
    "rt_tgsigqueueinfo": 240, "perf_event_open": 241, "accept4": 242, "prlimit64": 261,
    "fanotify_init": 262, "name_to_handle_at": 264, "open_by_handle_at": 265,
    "clock_adjtime": 266, "setns": 268, "sendmmsg": 269, "process_vm_readv": 270,
    "process_vm_writev": 271, "kcmp": 272, "finit_module": 273, "sched_setattr": 274,
    "seccomp": 277, "memfd_create": 279, "bpf": 280, "execveat": 281, "userfaultfd": 282, "kexec_file_load": 294,
}  # fmt: skip
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
SYSCALLS = {"x86_64": {**_X86_64, **_COMMON}, "aarch64": {**_AARCH64, **_COMMON}}


def _machine() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def _syscall(number: int, *args) -> int:
    """The raw system call; OSError with the kernel's errno when it fails."""
    result = _libc().syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def _prctl(option: int, *args: int) -> int:
    padded = [ctypes.c_ulong(value) for value in (*args, 0, 0, 0, 0)[:4]]
    result = _libc().prctl(ctypes.c_int(option), *padded)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


# -- what this machine offers --------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """What protects learner code on this machine."""

    isolated: bool
    landlock_abi: int  # 0: none
    seccomp: bool
    arch: str
    missing: tuple[Bilingual, ...] = ()  # why it is not isolated, one reason each

    def reasons(self) -> Bilingual:
        """Why learner code is not isolated here ("" where it is)."""
        return L("; ".join(r["en"] for r in self.missing), "；".join(r["zh"] for r in self.missing))

    def summary(self) -> Bilingual:
        if self.isolated:
            return L(
                f"isolated (Landlock ABI {self.landlock_abi}, seccomp on {self.arch}): files read-only "
                "outside a scratch folder, the project unreachable, no processes, no network",
                f"已隔离（Landlock ABI {self.landlock_abi}，seccomp，{self.arch}）：临时文件夹以外的文件只读，"
                "读不到本项目，不能启动进程，不能联网",
            )
        why = self.reasons()
        return L(f"not isolated: {why['en']}", f"未隔离：{why['zh']}")


def _landlock_abi() -> int:
    try:
        return _syscall(
            SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), LANDLOCK_CREATE_RULESET_VERSION
        )
    except (OSError, AttributeError):  # AttributeError: a C library without syscall()
        return 0


def _seccomp_filters() -> bool:
    try:
        _prctl(PR_GET_SECCOMP)
        action = ctypes.c_uint32(SECCOMP_RET_ERRNO)
        number = SYSCALLS[_machine()]["seccomp"]
        _syscall(number, SECCOMP_GET_ACTION_AVAIL, 0, ctypes.byref(action))
        return True
    except (OSError, KeyError, AttributeError):
        return False


@functools.cache
def probe() -> Report:
    """What this machine offers, measured once per process (a few system calls)."""
    arch = _machine()
    system = platform.system()
    if system != "Linux":
        name = "macOS" if system == "Darwin" else system or "this system"
        why = L(
            f"{name} has neither Landlock nor seccomp (Linux's isolation)",
            f"{name} 没有 Landlock 和 seccomp（这是 Linux 的隔离机制）",
        )
        return Report(False, 0, False, arch, (why,))
    abi, seccomp = _landlock_abi(), _seccomp_filters()
    missing = []
    if os.environ.get(DISABLE_ENV):
        missing.append(L(f"{DISABLE_ENV} is set, for tests", f"设置了 {DISABLE_ENV}，仅供测试"))
    if abi < 1:
        missing.append(
            L(
                "the kernel offers no Landlock: it needs Linux 5.13 or newer, booted with landlock among its LSMs",
                "内核没有 Landlock：需要 Linux 5.13 或更新的内核，并在启动时启用 landlock 安全模块",
            )
        )
    if arch not in SYSCALLS:
        missing.append(
            L(
                f"the lab's seccomp filter knows x86_64 and aarch64, not {arch}",
                f"实验的 seccomp 过滤器只支持 x86_64 和 aarch64，不支持 {arch}",
            )
        )
    elif not seccomp:
        missing.append(L("the kernel refuses seccomp filters", "内核不允许 seccomp 过滤器"))
    return Report(not missing, abi, seccomp, arch, tuple(missing))


# -- what the child may read --------------------------------------------------------------------


def project_paths() -> tuple[list[str], list[str]]:
    """What the learner's code must never read: the project's packages, and (when the
    project runs from its source) the checkout they sit in, with its tests, docs and
    whatever a teacher keeps there. A folder inside the checkout may still be granted on
    its own (the dev venv's torch); nothing inside a package ever is."""
    here = Path(__file__).resolve()
    root = here.parents[2]  # above exercises/
    packages = [str(root / name) for name in ("engine", "exercises", "tui")]
    checkout = [str(root)] if (root / "pyproject.toml").is_file() else []
    return packages, checkout


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _carve(root: str, secrets: list[str]) -> list[str]:
    """``root`` minus the secrets: root itself when it holds none, else its entries, each
    carved again (Landlock grants a folder with everything beneath it)."""
    if any(_inside(secret, root) for secret in secrets):
        if any(_inside(root, secret) for secret in secrets):
            return []
        try:
            entries = sorted(os.listdir(root))
        except OSError:
            return []
        return [part for entry in entries for part in _carve(os.path.join(root, entry), secrets)]
    return [root]


_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _distribution_paths(names: tuple[str, ...]) -> list[str]:
    """The installed files of these distributions and of everything they require (extras
    aside): the top-level entries each one's RECORD lists, where they are installed.
    Read from the *.dist-info folders directly (importlib.metadata takes ten times as long)."""
    installed: dict[str, tuple[str, str]] = {}  # normalised name -> (site folder, dist-info)
    for folder in sys.path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(".dist-info"):
                installed.setdefault(_normal(entry[: -len(".dist-info")].split("-")[0]), (folder, entry))
    seen: set[str] = set()
    todo = [_normal(name) for name in names]
    paths: list[str] = []
    while todo:
        key = todo.pop()
        if key in seen or key not in installed:
            continue
        seen.add(key)
        folder, info = installed[key]
        try:
            with open(os.path.join(folder, info, "METADATA"), encoding="utf-8") as handle:
                head = handle.read().partition("\n\n")[0]  # the headers; the description follows
            with open(os.path.join(folder, info, "RECORD"), encoding="utf-8") as handle:
                record = handle.read()
        except OSError:
            continue
        for line in head.splitlines():
            if line.startswith("Requires-Dist:") and "extra" not in line.partition(";")[2]:
                found = _REQUIREMENT_NAME.match(line[len("Requires-Dist:") :].strip())
                if found:
                    todo.append(_normal(found.group(0)))
        tops = {line.split(",", 1)[0].split("/", 1)[0] for line in record.splitlines()}
        for top in sorted(tops - {"", "..", "__pycache__"}):
            if not top.endswith(".pth"):
                paths.append(os.path.realpath(os.path.join(folder, top)))
    return paths


SYSTEM_READ = (
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
)


def grants() -> tuple[tuple[str, bool], ...]:
    """The read-only grants (path, is a folder): computed once, by the trusted process
    (the fork server, after importing torch), from what is installed here."""
    packages, checkout = project_paths()
    secrets = packages + checkout
    # the standard library where it really is (a venv's lib folder is the venv's packages),
    # and its compiled modules wherever this interpreter keeps them
    roots = [os.path.dirname(os.path.realpath(os.__file__))]
    roots += [os.path.realpath(entry) for entry in sys.path if entry.endswith("lib-dynload")]
    roots += _distribution_paths(("torch", "numpy"))
    roots += [os.path.realpath(path) for path in SYSTEM_READ]
    out: dict[str, bool] = {}
    for root in roots:
        for path in _carve(root, secrets):
            if os.path.exists(path) and not any(_inside(path, package) for package in packages):
                out.setdefault(path, os.path.isdir(path))
    return tuple(out.items())


def prepare() -> tuple[tuple[str, bool], ...] | None:
    """Before forking children (the fork server, once): what they may read, and the
    filter built, so that each child only applies them. None where there is no isolation."""
    report = probe()
    if not report.isolated:
        return None
    _libc()
    _program(report.arch)
    return grants()


# -- in the child ---------------------------------------------------------------------------


class IsolationError(Exception):
    """The child could not be confined: it must not run the learner's code."""


def limit(memory: int, cpu_seconds: int, isolated: bool) -> None:
    """Address space, CPU seconds, open files, no core dumps; files written in the scratch
    folder capped where the child is isolated (elsewhere no file may grow at all: without
    Landlock a write could be anywhere)."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    size = SCRATCH_FILE_LIMIT if isolated else 0
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES_LIMIT, OPEN_FILES_LIMIT))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write then fails with an error instead of killing


PR_SET_PDEATHSIG = 1
SCRATCH_TOTAL_LIMIT = 64 << 20  # the whole scratch folder, where it can be a tmpfs of its own
SCRATCH_INODES = 4096
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8


def scratch_in_memory(scratch: str, keep: tuple[str, ...]) -> bool:
    """Make the scratch folder, for this process alone, a tmpfs of SCRATCH_TOTAL_LIMIT
    bytes and SCRATCH_INODES files (RLIMIT_FSIZE caps each file, not their sum: one call
    wrote 528 MiB): a user and mount namespace of its own, which any user may make where
    the kernel allows unprivileged user namespaces. The files named in ``keep`` (the
    learner's copy) are carried over; the tmpfs goes with the process. False (and nothing
    changed) where the kernel refuses: the per-file cap alone then holds."""
    uid, gid = os.getuid(), os.getgid()
    carried = {}
    for name in keep:
        with open(os.path.join(scratch, name), "rb") as handle:
            carried[name] = handle.read()
    try:
        _libc_call("unshare", CLONE_NEWUSER | CLONE_NEWNS)
    except OSError:
        return False
    with contextlib.suppress(OSError):  # absent on old kernels; required for gid_map since 3.19
        Path("/proc/self/setgroups").write_text("deny")
    options = f"size={SCRATCH_TOTAL_LIMIT},nr_inodes={SCRATCH_INODES},mode=0700,uid={uid},gid={gid}"
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    try:
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
        _libc_call("mount", b"objectives-lab", scratch.encode(), b"tmpfs", flags, options.encode())
    except OSError:  # a namespace of its own, but no tmpfs: the folder on disk, as without one
        return False
    os.chdir(scratch)  # the tmpfs, not the folder beneath it
    for name, data in carried.items():
        with open(os.path.join(scratch, name), "wb") as handle:
            handle.write(data)
    return True


def _libc_call(name: str, *args) -> int:
    function = getattr(_libc(), name)
    function.restype = ctypes.c_int
    result = function(*args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def die_with_parent() -> None:
    """SIGKILL for this process when the one that forked it ends (the fork server, which
    itself ends when the app's socket closes): a learner's child never outlives the check
    that started it, even one killed with SIGKILL. Linux only; elsewhere the parent's
    closing of the pipes ends a child between calls."""
    import signal

    with contextlib.suppress(OSError, AttributeError):
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:  # the parent ended before the line above
        os._exit(0)


def close_other_files(keep: tuple[int, ...] = (0, 1, 2)) -> None:
    """Every descriptor but the protocol's: nothing the parent or the fork server held
    (a socket, a file of the teacher's) stays reachable."""
    highest = max(keep)
    os.closerange(highest + 1, 1 << 20)
    for fd in range(highest):
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


def _drop_privileges() -> None:
    """no_new_privs (required by Landlock and seccomp for a non-root process), and every
    capability gone from the effective and permitted sets: root in CI becomes an ordinary
    process that cannot raise its limits, signal or trace others, or bypass file modes. (The
    bounding and ambient sets act only through exec, which the filter refuses.)"""
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    header = struct.pack("=Ii", LINUX_CAPABILITY_VERSION_3, 0)
    data = bytes(24)  # two cap_user_data_t, all zero: effective, permitted, inheritable
    header_buf, data_buf = ctypes.create_string_buffer(header), ctypes.create_string_buffer(data)
    _syscall(SYSCALLS[_machine()]["capset"], header_buf, data_buf)


def _landlock(abi: int, read: tuple[tuple[str, bool], ...], scratch: str) -> None:
    """Every access right this kernel's ABI knows is handled (so refused unless granted):
    read-only on ``read``, read-write on ``scratch`` and /dev/null; no TCP at all (ABI 4);
    signals and abstract Unix sockets only within the sandbox (ABI 6). Execute is never
    granted: exec is refused twice."""
    fs = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        fs |= FS_REFER
    if abi >= 3:
        fs |= FS_TRUNCATE
    if abi >= 5:
        fs |= FS_IOCTL_DEV
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("=QQQ", fs, net, scoped)[: 8 if abi < 4 else 16 if abi < 6 else 24]
    attr_buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _syscall(SYS_LANDLOCK_CREATE_RULESET, attr_buf, ctypes.c_size_t(len(attr)), 0)
    truncate = FS_TRUNCATE if abi >= 3 else 0
    writable = (
        (FS_READ_FILE | FS_READ_DIR | FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_DIR)
        | FS_MAKE_REG
        | (FS_REFER if abi >= 2 else 0)
        | truncate
    )
    rules = [(path, (FS_READ_FILE | FS_READ_DIR) if folder else FS_READ_FILE) for path, folder in read]
    rules += [("/dev/null", FS_READ_FILE | FS_WRITE_FILE | truncate), (scratch, writable)]
    try:
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
                _syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, rule, 0)
            finally:
                os.close(fd)
        _syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)


def seccomp_program(arch: str, pid: int) -> list[tuple[int, int, int, int]]:
    """The filter for process ``pid``, as classic BPF instructions (code, jt, jf, k)."""
    return [(code, jt, jf, pid if k is None else k) for code, jt, jf, k in _program(arch)]


@functools.cache
def _program(arch: str) -> tuple[tuple[int, int, int, int | None], ...]:
    """The filter with None where the child's own pid goes (built once, before forking)."""
    numbers = SYSCALLS[arch]
    ld_w_abs, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    eperm, enosys = SECCOMP_RET_ERRNO | errno.EPERM, SECCOMP_RET_ERRNO | errno.ENOSYS
    arg0, arg1 = 16, 24  # the low 32 bits of args[0], args[1] (little-endian)
    program: list[tuple[int, int, int, int | None]] = [
        (ld_w_abs, 0, 0, 4),  # seccomp_data.arch
        (jeq, 1, 0, AUDIT_ARCH[arch]),
        (ret, 0, 0, SECCOMP_RET_KILL_PROCESS),  # another ABI (i386 via int 0x80): never
        (ld_w_abs, 0, 0, 0),  # seccomp_data.nr
    ]
    if arch == "x86_64":
        program += [(jge, 0, 1, 0x40000000), (ret, 0, 0, eperm)]  # the x32 ABI
    program += [(jge, 0, 1, NEWEST_SYSCALL + 1), (ret, 0, 0, enosys)]

    def allowed_if(number: int, offset: int, values: tuple[int | None, ...], allow: bool) -> None:
        """The call with its argument at ``offset`` among ``values``: allowed (or refused)."""
        hit, miss = (SECCOMP_RET_ALLOW, eperm) if allow else (eperm, SECCOMP_RET_ALLOW)
        count = len(values)
        program.append((jeq, 0, count + 3, number))
        program.append((ld_w_abs, 0, 0, offset))
        program.extend((jeq, count - i, 0, value) for i, value in enumerate(values))
        program.extend([(ret, 0, 0, miss), (ret, 0, 0, hit)])

    for name in SELF_ONLY:
        allowed_if(numbers[name], arg0, (None,), allow=True)
    for name in SELF_OR_ZERO:
        allowed_if(numbers[name], arg0, (0, None), allow=True)
    allowed_if(numbers["fcntl"], arg1, (F_SETOWN, F_SETSIG, F_SETOWN_EX), allow=False)
    allowed_if(numbers["ioctl"], arg1, (FIOSETOWN, SIOCSPGRP, FIOASYNC, TIOCSTI), allow=False)
    for name in ENOSYS_CALLS:
        program += [(jeq, 0, 1, numbers[name]), (ret, 0, 0, enosys)]
    for name in DENIED:
        if name in numbers:
            program += [(jeq, 0, 1, numbers[name]), (ret, 0, 0, eperm)]
    program.append((ret, 0, 0, SECCOMP_RET_ALLOW))
    return tuple(program)


def _seccomp(arch: str) -> None:
    program = seccomp_program(arch, os.getpid())
    code = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    filters = ctypes.create_string_buffer(code, len(code))
    fprog = ctypes.create_string_buffer(struct.pack("@HP", len(program), ctypes.addressof(filters)))
    # TSYNC: every thread of the process, should there be any besides this one
    _syscall(SYSCALLS[arch]["seccomp"], SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, fprog)


def confine(scratch: str, read: tuple[tuple[str, bool], ...]) -> None:
    """Isolate this process for good: privileges, Landlock, seccomp. Called in the child,
    after its trusted imports, before the learner's file is read; IsolationError when any
    part fails (the child must then not run the file)."""
    report = probe()
    if not report.isolated:
        raise IsolationError(report.summary()["en"])
    try:
        _drop_privileges()
        keep_import_listings()
        _landlock(report.landlock_abi, read, scratch)
        _seccomp(report.arch)
    except OSError as error:
        raise IsolationError(f"{error.strerror} ({errno.errorcode.get(error.errno, error.errno)})") from None


def keep_import_listings() -> None:
    """Import from the folder listings made before confinement. Landlock grants the
    installed packages' own folders, not the site-packages folder around them, and Python
    lists a folder again whenever its mtime moves (a package installed beside torch, a
    file made there): the listing is then refused, and a module torch imports late
    (sympy) is "not found". A refused listing now keeps the one made before."""
    from importlib.machinery import FileFinder

    original = FileFinder._fill_cache

    def fill_cache(finder) -> None:
        try:
            os.listdir(finder.path or os.getcwd())
        except PermissionError:
            return
        original(finder)

    for finder in list(sys.path_importer_cache.values()):
        if isinstance(finder, FileFinder):
            finder.find_spec("objectives_tutor_listing")  # lists the folder now, while allowed
    FileFinder._fill_cache = fill_cache


def forget_project() -> None:
    """The project's import machinery out of this interpreter: the editable install's
    finder and path hook, the checkout on sys.path, any module of it already loaded.
    Landlock is what keeps the files unreadable; this keeps imports from looking there.
    (String tests only: a torch process has thousands of modules and cached paths.)"""
    packages, checkout = project_paths()
    exact = (*packages, *checkout)
    prefixes = ("__editable__", *(package + os.sep for package in packages))

    def theirs(entry: str) -> bool:  # sys.path and its cache hold absolute paths
        return entry in exact or entry.startswith(prefixes)

    sys.meta_path[:] = [
        f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")
    ]
    sys.path_hooks[:] = [
        h for h in sys.path_hooks if not getattr(h, "__module__", "").startswith("__editable__")
    ]
    sys.path[:] = [entry for entry in sys.path if not theirs(entry)]
    for entry in [entry for entry in sys.path_importer_cache if theirs(entry)]:
        del sys.path_importer_cache[entry]
    names = ("engine", "exercises", "tui")
    for name in [name for name in sys.modules if name.startswith(names)]:
        if name.partition(".")[0] in names:
            del sys.modules[name]
