"""The two HTML pages the class server answers: sign-in, and the page that holds
the app's terminal. Both are built here, not from textual-serve's template: that
one fetches a font from Google (a lab without internet shows fallback glyphs).

Everything the pages load comes from this server: textual-serve's own terminal
script and stylesheet, and the Roboto Mono font files it ships, declared here
with ``@font-face`` under the name its script asks for. Chinese characters fall
back to the system's CJK fonts (Debian: fonts-wqy-microhei). A Content-Security-
Policy tells the browser to refuse anything from elsewhere, so a slip would show
as a blocked request, never as a silent download.

Every value a person typed (a student id, a name) is HTML-escaped on its way in."""

from __future__ import annotations

import html
import secrets

from tui.i18n import LANGUAGES, t

FONT_FILE = "RobotoMono-VariableFont_wght.ttf"
MONOSPACE = (
    "'Roboto Mono', 'DejaVu Sans Mono', 'Noto Sans Mono CJK SC', 'WenQuanYi Micro Hei Mono', monospace"
)


HTML_LANG = {"zh": "zh-CN", "en": "en"}  # the page's lang attribute: the browser picks CJK fonts by it


def new_nonce() -> str:
    return secrets.token_urlsafe(16)


def security_headers(nonce: str) -> dict[str, str]:
    """Only this server's scripts, styles, fonts and websocket; no framing, no referrer."""
    policy = "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self' 'nonce-{nonce}'",
            # textual.js adds its xterm styles with <style> elements at run time
            "style-src 'self' 'unsafe-inline'",
            "font-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
        )
    )
    return {
        "Content-Security-Policy": policy,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        # same-origin, not no-referrer: under no-referrer a browser posts the sign-in form
        # with "Origin: null", and the server refuses a POST whose Origin is not its own
        # (login CSRF). Other sites still get no referrer.
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
    }


def _other_lang(lang: str) -> str:
    return next(other for other in LANGUAGES if other != lang)


_BASE_CSS = f"""
@font-face {{ font-family: 'Roboto Mono'; src: url('/static/fonts/{FONT_FILE}') format('truetype');
  font-weight: 100 700; font-display: block; }}
html, body {{ margin: 0; height: 100%; background: #0c181f; color: #e8eef2; font-family: {MONOSPACE}; }}
a {{ color: #8cc8ff; }}
.card {{ max-width: 26rem; margin: 0 auto; position: relative; top: 10vh; padding: 1.5rem 2rem;
  background: #12232d; }}
.card h1 {{ font-size: 1.2rem; margin: 0 0 1rem 0; }}
.card label {{ display: block; margin: .8rem 0 .2rem 0; }}
.card input {{ width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; background: #0c181f;
  color: inherit; border: 1px solid #3a5566; }}
.card button {{ margin-top: 1.2rem; padding: .6rem 1.4rem; font: inherit; background: #5e0ba7; color: #fff;
  border: none; cursor: pointer; }}
.message {{ color: #ffb454; margin: .8rem 0 0 0; }}
.lang {{ float: right; font-size: .9rem; }}
"""


def sign_in_page(lang: str, nonce: str, message: str = "", student: str = "") -> str:
    other = _other_lang(lang)
    notice = f'<p class="message" id="message" role="alert">{html.escape(message)}</p>' if message else ""
    return f"""<!DOCTYPE html>
<html lang="{HTML_LANG[lang]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(t("class-web-title", lang))}</title>
<style nonce="{nonce}">{_BASE_CSS}</style>
</head>
<body>
<form class="card" method="post" action="/sign-in?lang={lang}" autocomplete="off">
<a class="lang" href="/?lang={other}">{html.escape(t("class-web-other-language", lang))}</a>
<h1>{html.escape(t("class-web-title", lang))}</h1>
<label for="student">{html.escape(t("class-web-student-id", lang))}</label>
<input id="student" name="student" maxlength="200" required autofocus value="{html.escape(student)}">
<label for="pin">{html.escape(t("class-web-pin", lang))}</label>
<input id="pin" name="pin" type="password" maxlength="64" required>
{notice}
<button id="sign-in" type="submit">{html.escape(t("class-web-sign-in", lang))}</button>
</form>
</body>
</html>
"""


def app_page(lang: str, nonce: str, who: str, font_size: int = 16) -> str:
    """The terminal, and a bar with who is signed in and a sign-out button. The
    websocket address comes from the address the browser used (behind a proxy too).

    When the connection closes, the page asks the server why (``/state``) before it
    says anything: a session that ended says how (signed in elsewhere, signed out, by
    the teacher, expired), a live one (the app ended, the line dropped) offers to
    reconnect. When the exam starts, the server sends a one-time code over the
    websocket; the page exchanges it at ``/renew`` for the session's new token (an
    HttpOnly cookie: no script ever sees a token)."""
    ended = t("class-web-closed", lang)
    return f"""<!DOCTYPE html>
<html lang="{HTML_LANG[lang]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(t("class-web-title", lang))}</title>
<link rel="preload" href="/static/fonts/{FONT_FILE}" as="font" type="font/ttf" crossorigin>
<link rel="stylesheet" href="/static/css/xterm.css">
<style nonce="{nonce}">{_BASE_CSS}
body {{ display: flex; flex-direction: column; }}
#bar {{ display: flex; justify-content: space-between; align-items: center; padding: .2rem .8rem;
  font-size: .85rem; background: #12232d; }}
#bar form {{ margin: 0; }}
#bar button {{ font: inherit; background: none; color: #8cc8ff; border: 1px solid #3a5566; cursor: pointer; }}
#terminal {{ flex: 1 1 0; height: auto; width: 100vw; min-height: 0; overflow: hidden; opacity: 0;
  transition: opacity .3s ease-out; }}  /* textual.js makes it 100vh: the bar would push its last rows off */
body.-first-byte #terminal {{ opacity: 1; }}
#ended {{ display: none; }}
body.-closed #ended {{ display: block; }}
body.-closed #terminal {{ display: none; }}
</style>
<script nonce="{nonce}">
(() => {{
  const Native = window.WebSocket;
  const told = (text, link) => {{
    document.getElementById("ended-text").textContent = text;
    document.getElementById("ended-link").textContent = link;
  }};
  window.WebSocket = function (url, protocols) {{
    const socket = protocols ? new Native(url, protocols) : new Native(url);
    socket.addEventListener("message", (event) => {{
      if (typeof event.data !== "string" || !event.data.startsWith('["class-renew"')) return;
      const code = JSON.parse(event.data)[1];
      fetch("/renew", {{method: "POST", credentials: "same-origin", body: new URLSearchParams({{code: code}})}});
    }});
    socket.addEventListener("close", () => {{
      fetch("/state", {{credentials: "same-origin"}}).then((r) => r.json())
        .then((state) => told(state.message, state.link)).catch(() => {{}});
    }});
    return socket;
  }};
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {{CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3}});
}})();
document.addEventListener("DOMContentLoaded", () => {{
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  document.getElementById("terminal").dataset.sessionWebsocketUrl = scheme + location.host + "/ws";
}});
// Keys go to the app at once, without a click first (and the footer shows its keys).
window.addEventListener("load", () => setTimeout(() => {{
  const box = document.querySelector(".xterm-helper-textarea");
  if (box) box.focus();
}}, 300));
</script>
<script src="/static/js/textual.js"></script>
</head>
<body>
<div id="bar"><span id="who">{html.escape(who)}</span>
<form method="post" action="/sign-out?lang={lang}"><button id="sign-out" type="submit">{html.escape(t("class-web-sign-out", lang))}</button></form></div>
<div class="card" id="ended"><p id="ended-text">{html.escape(ended)}</p><p><a id="ended-link" href="/?lang={lang}">{html.escape(t("class-web-reconnect", lang))}</a></p></div>
<div id="terminal" class="textual-terminal" data-font-size="{int(font_size)}"></div>
</body>
</html>
"""
