"""PINs at rest and at the door: salted scrypt hashes (a leaked database does not
hand out PINs), a comparison in constant time, and what people type turned into
what was issued (lower case, spaces, dashes, full-width letters) without ever
hashing a megabyte someone pasted."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata

from exercises.classroom.identity import normalise_pin

SCRYPT_N = 2**13  # 8 MB and ~30 ms per check: nothing for a class signing in; ~30 core-years per stolen PIN
PARALLEL_FROM = 200  # PINs hashed at once (class init of a large roster) use every core
SCRYPT_R = 8
MAX_TYPED = 64  # characters of a typed PIN looked at; longer is simply wrong
MAX_TYPED_ID = 200


def hash_pin(pin: str, cost: int = SCRYPT_N) -> str:
    """ "scrypt$N$salt$hash": the parameters travel with the hash, so the cost can rise later."""
    salt = secrets.token_bytes(16)
    digest = _scrypt(normalise_pin(pin), salt, cost)
    return f"scrypt${cost}${salt.hex()}${digest.hex()}"


def hash_pins(pins: list[str], cost: int = SCRYPT_N) -> list[str]:
    """hash_pin for each, across the machine's cores for a big roster (10,000 PINs: minutes on one core)."""
    import os

    workers = min(os.cpu_count() or 1, 8)
    if len(pins) < PARALLEL_FROM or workers < 2 or not hasattr(os, "fork"):
        return [hash_pin(pin, cost) for pin in pins]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(hash_pin, pins, [cost] * len(pins), chunksize=50))


def _scrypt(pin: str, salt: bytes, cost: int) -> bytes:
    return hashlib.scrypt(
        pin.encode(), salt=salt, n=cost, r=SCRYPT_R, p=1, maxmem=256 * 1024 * 1024, dklen=32
    )


def check_pin(typed: str, stored: str | None, cost: int = SCRYPT_N) -> bool:
    """True when ``typed`` is the PIN behind ``stored``. With ``stored`` None (no such
    student) the same work is done against a dummy, so an unknown id costs the same time."""
    value = typed_pin(typed)
    try:
        kind, n, salt, digest = (stored or "").split("$")
        n_value, salt_bytes, digest_bytes = int(n), bytes.fromhex(salt), bytes.fromhex(digest)
        usable = kind == "scrypt" and n_value >= 2 and n_value & (n_value - 1) == 0
    except ValueError:
        usable = False
    if not usable:
        _scrypt(value or "-", b"\0" * 16, cost)
        return False
    return hmac.compare_digest(_scrypt(value or "-", salt_bytes, n_value), digest_bytes) and bool(value)


def typed_pin(typed: object) -> str:
    """What a person typed, as the issued form ("abcd efgh", "ＡＢＣＤ－ＥＦＧＨ" -> "ABCDEFGH");
    empty when it cannot be a PIN (not text, or absurdly long)."""
    if not isinstance(typed, str) or len(typed) > MAX_TYPED:
        return ""
    return normalise_pin(typed)


def typed_id(typed: object) -> str:
    """A student id as typed at sign-in: NFKC (full-width "ｓ００１" is "s001"), spaces
    around it dropped; empty when it cannot be an id (not text, too long, controls)."""
    from exercises.classroom.safe import is_printable_line

    if not isinstance(typed, str) or len(typed) > 4 * MAX_TYPED_ID:
        return ""
    value = unicodedata.normalize("NFKC", typed).strip()
    if not value or len(value) > MAX_TYPED_ID or not is_printable_line(value) or not _encodable(value):
        return ""
    return value


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return "\x00" not in text


def loggable(text: object, limit: int = MAX_TYPED_ID) -> str:
    """Text from the network made safe to keep in a log row (no NUL, no surrogates, nothing
    invisible, bounded)."""
    from exercises.classroom.safe import plain

    value = plain(str(text)[: limit * 2], limit)
    # what prints as nothing (a zero-width space, a soft hyphen, a word joiner) is shown as
    # its escape: "s1\u200b" failing is not "s1" failing, on the teacher's screen
    value = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in value)
    return value.encode("utf-8", "backslashreplace").decode("utf-8")
