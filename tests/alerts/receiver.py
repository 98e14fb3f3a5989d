"""A webhook receiver on 127.0.0.1: records every POST, answers with a chosen status or after a delay."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    body: dict
    raw: str


@dataclass
class Receiver:
    base_url: str = ""
    posts: list[Received] = field(default_factory=list)
    status: int = 200
    delay_s: float = 0.0

    def on(self, path: str) -> list[Received]:
        return [post for post in self.posts if post.path == path]

    def reset(self, status: int = 200, delay_s: float = 0.0) -> None:
        self.posts.clear()
        self.status, self.delay_s = status, delay_s


@contextlib.contextmanager
def receiving() -> Iterator[Receiver]:
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8")
            receiver.posts.append(Received(self.path, json.loads(raw), raw))
            if receiver.delay_s:
                time.sleep(receiver.delay_s)
            try:
                self.send_response(receiver.status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
            except OSError:
                pass  # the client gave up waiting

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    receiver.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
