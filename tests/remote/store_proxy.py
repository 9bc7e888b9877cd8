"""A small HTTP/1.1 proxy in front of the S3 or web server of a test or benchmark: it counts the
requests that reach the store (method, path, status), can add a fixed delay to every request (the
benchmark's 20 ms per round trip), and can rewrite the Host header (OpenVisus 2.2.149 signs
`host:` without the port, AmazonCloudStorage, so its signed requests only verify against a store
that sees the Host it signed), and can fail uploads (`--fail-puts-after N`: every PUT after the
first N is answered 500 without reaching the store, as a store failing for good). Each client connection gets its own upstream connection (keep-alive
is mirrored); responses are relayed as they arrive.

    python store_proxy.py --upstream 127.0.0.1:9000 [--delay-ms 20] [--host-header 127.0.0.1]
                          [--fail-puts-after N]

prints `listening on PORT` once ready. GET /__proxy/stats answers the requests seen so far as
JSON ({"requests": [[method, path, status, arrival ms], ...]}); GET /__proxy/reset forgets them.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time


class Proxy:
    def __init__(self, upstream: tuple[str, int], delay: float, host_header: str | None,
                 fail_puts_after: int | None = None):
        self.upstream = upstream
        self.fail_puts_after = fail_puts_after
        self.puts = 0
        self.delay = delay
        self.host_header = host_header
        self.requests: list[list] = []
        self.started = time.monotonic()

    async def answer_stats(self, writer, target: bytes) -> None:
        if target.startswith(b"/__proxy/reset"):
            self.requests.clear()
        body = json.dumps({"requests": self.requests}).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)
        await writer.drain()

    async def relay_body(self, reader, writer, headers: dict, no_body: bool) -> bool:
        """Copies one message body; False when the connection must close afterwards."""
        if no_body:
            return True
        if b"content-length" in headers:
            left = int(headers[b"content-length"])
            while left > 0:
                chunk = await reader.read(min(left, 1 << 20))
                if not chunk:
                    raise ConnectionError("upstream closed mid-body")
                writer.write(chunk)
                left -= len(chunk)
                await writer.drain()
            return True
        if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            while True:
                size_line = await reader.readuntil(b"\r\n")
                writer.write(size_line)
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    while True:  # trailers up to the empty line
                        line = await reader.readuntil(b"\r\n")
                        writer.write(line)
                        if line == b"\r\n":
                            break
                    await writer.drain()
                    return True
                writer.write(await reader.readexactly(size + 2))
                await writer.drain()
        while True:  # delimited by the end of the connection
            chunk = await reader.read(1 << 20)
            if not chunk:
                return False
            writer.write(chunk)
            await writer.drain()

    @staticmethod
    def parse_head(head: bytes) -> tuple[bytes, dict]:
        lines = head.split(b"\r\n")
        headers = {}
        for line in lines[1:]:
            if b":" in line:
                name, value = line.split(b":", 1)
                headers[name.strip().lower()] = value.strip()
        return lines[0], headers

    async def serve(self, client_reader, client_writer) -> None:
        up_reader = up_writer = None
        try:
            while True:
                try:
                    head = await client_reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                first, headers = self.parse_head(head)
                method, target, _ = first.split(b" ", 2)
                if target.startswith(b"/__proxy/"):
                    await self.answer_stats(client_writer, target)
                    continue
                body = b""
                if b"content-length" in headers:
                    body = await client_reader.readexactly(int(headers[b"content-length"]))
                if self.host_header is not None:
                    lines = [line if not line.lower().startswith(b"host:")
                             else b"Host: " + self.host_header.encode() for line in head.split(b"\r\n")]
                    head = b"\r\n".join(lines)
                record = [method.decode(), target.decode().split("?")[0], 0,
                          round((time.monotonic() - self.started) * 1000.0, 2)]
                self.requests.append(record)
                if self.delay > 0:
                    await asyncio.sleep(self.delay)
                if method == b"PUT" and self.fail_puts_after is not None:
                    self.puts += 1
                    if self.puts > self.fail_puts_after:
                        error = (b"<?xml version=\"1.0\"?><Error><Code>InternalError</Code>"
                                 b"<Message>failure injected by store_proxy.py</Message></Error>")
                        record[2] = 500
                        client_writer.write(b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/xml\r\n"
                                            b"Content-Length: " + str(len(error)).encode() + b"\r\n\r\n" + error)
                        await client_writer.drain()
                        continue
                if up_writer is None:
                    up_reader, up_writer = await asyncio.open_connection(*self.upstream, limit=1 << 22)
                up_writer.write(head + body)
                await up_writer.drain()
                response_head = await up_reader.readuntil(b"\r\n\r\n")
                status_line, response_headers = self.parse_head(response_head)
                status = int(status_line.split(b" ")[1])
                record[2] = status
                client_writer.write(response_head)
                keep = await self.relay_body(up_reader, client_writer, response_headers,
                                             method == b"HEAD" or status in (204, 304) or status < 200)
                await client_writer.drain()
                if not keep or response_headers.get(b"connection", b"").lower() == b"close":
                    return
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            return
        finally:
            for w in (client_writer, up_writer):
                if w is not None:
                    w.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT of the store")
    parser.add_argument("--listen-port", type=int, default=0)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--host-header", default=None)
    parser.add_argument("--fail-puts-after", type=int, default=None)
    args = parser.parse_args()
    host, port = args.upstream.rsplit(":", 1)
    proxy = Proxy((host, int(port)), args.delay_ms / 1000.0, args.host_header, args.fail_puts_after)
    server = await asyncio.start_server(proxy.serve, "127.0.0.1", args.listen_port, limit=1 << 22)
    print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
