"""Real HTTP on loopback: a stdlib ThreadingHTTPServer speaking HTTP/1.1 with keep-alive."""

from __future__ import annotations

import logging
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

from gatehouse.console_twin.service import Answer
from gatehouse.console_twin.settings import TwinSettings

log = logging.getLogger("console_twin.http")


class Console(Protocol):
    """What the server needs of the console it serves (a ConsoleTwin is one)."""

    @property
    def settings(self) -> TwinSettings: ...

    def answer(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer: ...

    def http_date(self) -> str: ...


def console_server(twin: Console, host: str, port: int) -> ThreadingHTTPServer:
    class ConsoleRequestHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive; every answer carries Content-Length
        timeout = 120  # an idle keep-alive connection is closed after this long
        # Headers and body leave in two writes; with Nagle's algorithm the second waits for the
        # client's delayed ACK, a pause on every request that would swamp the latency knob.
        disable_nagle_algorithm = True

        def version_string(self) -> str:
            return "console-twin"

        def date_time_string(self, timestamp: float | None = None) -> str:
            # The Date header shows the twin's clock, not the wall clock.
            return twin.http_date()

        def log_message(self, format: str, *args: object) -> None:
            log.debug("%s " + format, self.address_string(), *args)

        def _read_body(self) -> bytes:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                # A streamed request body: read every chunk, or the next request would start mid-body.
                chunks = []
                while size := int(self.rfile.readline().split(b";")[0], 16):
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailer fields
                return b"".join(chunks)
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _answer(self) -> None:
            body = self._read_body()
            headers = {name.lower(): value for name, value in self.headers.items()}
            answer = twin.answer(self.command, self.path, headers, body)
            if answer.fault == "drop":
                self.close_connection = True  # closed without a byte of answer
                return
            if answer.fault == "slow":
                time.sleep(twin.settings.slow_seconds)
            try:
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)
            except (BrokenPipeError, ConnectionResetError):
                # The client gave up waiting (a slow fault outlasting its timeout).
                self.close_connection = True

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    server = ThreadingHTTPServer((host, port), ConsoleRequestHandler)
    server.daemon_threads = True
    return server
