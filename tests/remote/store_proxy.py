"""A small HTTP/1.1 proxy in front of the S3 or web server of a test or benchmark: it counts the
requests that reach the store (method, path, status) and the client connections that sent them, can
add a fixed delay to every request (the benchmark's 20 ms per round trip), can rewrite the Host
header (OpenVisus 2.2.149 signs `host:` without the port, AmazonCloudStorage, so its signed
requests only verify against a store that sees the Host it signed), and can fail uploads
(`--fail-puts-after N`: every PUT after the first N is answered 500 without reaching the store, as
a store failing for good). Each client connection gets a thread and its own upstream connection
(keep-alive is mirrored); response bodies of known length move from the store's socket to the
client's with splice(2) through a pipe, never through Python, so the proxy passes bytes at
loopback speed and costs the benchmark's shared cores next to nothing (bench/remote/run_bench.py
measures it: a read through it without delay against the same read from the store).

    python store_proxy.py --upstream 127.0.0.1:9000 [--delay-ms 20] [--host-header 127.0.0.1]
                          [--fail-puts-after N]

prints `listening on PORT` once ready. GET /__proxy/stats answers the requests seen so far as
JSON ({"requests": [[method, path, status, arrival ms], ...], "connections": N}); GET
/__proxy/reset forgets them.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import socket
import sys
import threading
import time

PIPE_BYTES = 1 << 20


class Conn:
    """A socket with a read buffer: heads are parsed from it, bodies bypass it."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = b""

    def fill(self) -> bool:
        data = self.sock.recv(1 << 16)
        self.buf += data
        return bool(data)

    def read_until(self, delim: bytes) -> bytes | None:
        """Up to and with `delim`; None at a clean end of the connection before any byte."""
        while delim not in self.buf:
            if not self.fill():
                if self.buf:
                    raise ConnectionError("connection closed mid-message")
                return None
        end = self.buf.index(delim) + len(delim)
        out, self.buf = self.buf[:end], self.buf[end:]
        return out

    def read_exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            if not self.fill():
                raise ConnectionError("connection closed mid-body")
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


def parse_head(head: bytes) -> tuple[bytes, dict]:
    lines = head.split(b"\r\n")
    headers = {}
    for line in lines[1:]:
        if b":" in line:
            name, value = line.split(b":", 1)
            headers[name.strip().lower()] = value.strip()
    return lines[0], headers


class Proxy:
    def __init__(self, upstream: tuple[str, int], delay: float, host_header: str | None,
                 fail_puts_after: int | None = None):
        self.upstream = upstream
        self.delay = delay
        self.host_header = host_header
        self.fail_puts_after = fail_puts_after
        self.lock = threading.Lock()
        self.puts = 0
        self.connections = 0
        self.requests: list[list] = []
        self.started = time.monotonic()

    def answer_stats(self, client: socket.socket, target: bytes) -> None:
        with self.lock:
            if target.startswith(b"/__proxy/reset"):
                self.requests.clear()
                self.connections = 0
            body = json.dumps({"requests": self.requests, "connections": self.connections}).encode()
        client.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                       + str(len(body)).encode() + b"\r\n\r\n" + body)

    @staticmethod
    def splice_body(up: Conn, client: socket.socket, left: int, pipe: tuple[int, int]) -> None:
        """`left` body bytes from `up` to `client`: what `up` buffered, then the kernel's pipe."""
        if up.buf:
            first, up.buf = up.buf[:left], up.buf[left:]
            client.sendall(first)
            left -= len(first)
        r, w = pipe
        while left > 0:
            n = os.splice(up.sock.fileno(), w, min(left, PIPE_BYTES), flags=os.SPLICE_F_MOVE)
            if n == 0:
                raise ConnectionError("upstream closed mid-body")
            left -= n
            while n > 0:
                n -= os.splice(r, client.fileno(), n, flags=os.SPLICE_F_MOVE)

    def relay_body(self, up: Conn, client: socket.socket, headers: dict, no_body: bool, pipe) -> bool:
        """Copies one response body; False when the connection must close afterwards."""
        if no_body:
            return True
        if b"content-length" in headers:
            self.splice_body(up, client, int(headers[b"content-length"]), pipe)
            return True
        if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            while True:
                size_line = up.read_until(b"\r\n")
                if size_line is None:
                    raise ConnectionError("upstream closed mid-body")
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    out = size_line
                    while True:  # trailers up to the empty line
                        line = up.read_until(b"\r\n")
                        if line is None:
                            raise ConnectionError("upstream closed mid-body")
                        out += line
                        if line == b"\r\n":
                            break
                    client.sendall(out)
                    return True
                client.sendall(size_line + up.read_exactly(size + 2))
        if up.buf:  # delimited by the end of the connection
            client.sendall(up.buf)
            up.buf = b""
        while True:
            chunk = up.sock.recv(1 << 20)
            if not chunk:
                return False
            client.sendall(chunk)

    def fail_put(self, client: socket.socket, record: list) -> bool:
        """Answers 500 instead of the store when PUTs are to fail now."""
        with self.lock:
            self.puts += 1
            if self.puts <= self.fail_puts_after:
                return False
            record[2] = 500
        error = (b"<?xml version=\"1.0\"?><Error><Code>InternalError</Code>"
                 b"<Message>failure injected by store_proxy.py</Message></Error>")
        client.sendall(b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/xml\r\n"
                       b"Content-Length: " + str(len(error)).encode() + b"\r\n\r\n" + error)
        return True

    def serve(self, client_sock: socket.socket) -> None:
        counted = False  # a connection counts from its first request to the store (not to /__proxy/)
        client = Conn(client_sock)
        up: Conn | None = None
        pipe = os.pipe()
        try:
            fcntl.fcntl(pipe[1], fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:  # above /proc/sys/fs/pipe-max-size: the default size works, in more steps
            pass
        try:
            while True:
                head = client.read_until(b"\r\n\r\n")
                if head is None:
                    return
                first, headers = parse_head(head)
                method, target, _ = first.split(b" ", 2)
                if target.startswith(b"/__proxy/"):
                    self.answer_stats(client_sock, target)
                    continue
                if not counted:
                    counted = True
                    with self.lock:
                        self.connections += 1
                body = client.read_exactly(int(headers[b"content-length"])) if b"content-length" in headers else b""
                if self.host_header is not None:
                    lines = [line if not line.lower().startswith(b"host:")
                             else b"Host: " + self.host_header.encode() for line in head.split(b"\r\n")]
                    head = b"\r\n".join(lines)
                record = [method.decode(), target.decode().split("?")[0], 0,
                          round((time.monotonic() - self.started) * 1000.0, 2)]
                with self.lock:
                    self.requests.append(record)
                if self.delay > 0:
                    time.sleep(self.delay)
                if method == b"PUT" and self.fail_puts_after is not None and self.fail_put(client_sock, record):
                    continue
                if up is None:
                    up = Conn(socket.create_connection(self.upstream))
                    up.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                up.sock.sendall(head + body)
                response_head = up.read_until(b"\r\n\r\n")
                if response_head is None:
                    raise ConnectionError("upstream closed before answering")
                status_line, response_headers = parse_head(response_head)
                status = int(status_line.split(b" ")[1])
                record[2] = status
                client_sock.sendall(response_head)
                keep = self.relay_body(up, client_sock, response_headers,
                                       method == b"HEAD" or status in (204, 304) or status < 200, pipe)
                if not keep or response_headers.get(b"connection", b"").lower() == b"close":
                    return
        except (ConnectionError, OSError, ValueError, IndexError):
            return
        finally:
            for fd in pipe:
                os.close(fd)
            for c in (client, up):
                if c is not None:
                    c.sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT of the store")
    parser.add_argument("--listen-port", type=int, default=0)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--host-header", default=None)
    parser.add_argument("--fail-puts-after", type=int, default=None)
    args = parser.parse_args()
    host, port = args.upstream.rsplit(":", 1)
    proxy = Proxy((host, int(port)), args.delay_ms / 1000.0, args.host_header, args.fail_puts_after)
    server = socket.create_server(("127.0.0.1", args.listen_port), backlog=256)
    print(f"listening on {server.getsockname()[1]}", flush=True)
    while True:
        client, _ = server.accept()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=proxy.serve, args=(client,), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
