"""Operations and resources (issues 14 and 19): per-client rate limits (429 + Retry-After for the
client that floods, answers for the others), /metrics parsed by the Prometheus text parser with the
counters moving, liveness/readiness, the reply budget (20 clients asking 1 GiB and never reading
keep the server's memory under its budget while others are served), SIGTERM within 5 s, and SIGHUP
reloads (a dataset and a user added and removed while a client keeps reading; a bad config is
refused and the server keeps running)."""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse

import numpy as np
from prometheus_client.parser import text_string_to_metric_families

import secure_support as S
import server_harness as H


def boxquery(name, box, toh, compression="raw"):
    return "/mod_visus?" + urllib.parse.urlencode(
        {"action": "boxquery", "dataset": name, "box": box, "toh": str(toh), "compression": compression},
        quote_via=urllib.parse.quote)


def metrics(port):
    st, h, body = S.request(port, "/metrics")
    assert st == 200 and h["content-type"].startswith("text/plain; version=0.0.4"), (st, h)
    out = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS")


class RateLimitsAndMetrics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hzio_ops_")
        g = H.GOLDEN
        cls.passwords = {"ana": "ana-secret-1", "bob": "bob-secret-2"}
        config = {"datasets": [{"name": "rgb", "path": g + "/rgb_hz_raw/visus.idx", "public": True},
                               {"name": "tinyhz", "path": g + "/tiny/hz.idx", "public": True}],
                  "users": [{"name": u, "secrets": [S.passwd(p)]} for u, p in cls.passwords.items()],
                  "rate_limit": {"requests_per_second": 10, "burst": 10}}
        cls.server = H.HzioServer([], ["--config", S.write_config(os.path.join(cls.tmp, "c.json"), config),
                                       "--threads", "4"])

    @classmethod
    def tearDownClass(cls):
        status = cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert status == 0, status

    def flood_while_polling(self, flood, poll):
        """Runs `flood()` (returns statuses) while `poll()` is called every 0.25 s; returns both."""
        polled, stop = [], threading.Event()

        def poller():
            while not stop.is_set():
                polled.append(poll())
                time.sleep(0.25)

        t = threading.Thread(target=poller)
        t.start()
        try:
            flooded = flood()
        finally:
            stop.set()
            t.join()
        return flooded, polled

    def test_flooding_address_gets_429_while_another_is_answered(self):
        target = boxquery("tinyhz", "0 3 0 3", 4)

        def flood():
            out, t0 = [], time.time()
            while time.time() - t0 < 2.5:
                st, h, body = S.request(self.server.port, target, source="127.0.0.2")
                out.append((st, h.get("retry-after"), body))
            return out

        flooded, polled = self.flood_while_polling(
            flood, lambda: S.request(self.server.port, target, source="127.0.0.3")[0])
        statuses = [st for st, _, _ in flooded]
        self.assertIn(429, statuses)
        self.assertIn(200, statuses)  # the burst and the refill got through
        for st, retry, body in flooded:
            if st == 429:
                self.assertGreaterEqual(int(retry), 1)
        self.assertGreater(len(polled), 2)
        self.assertEqual(set(polled), {200})

    def test_flooding_user_gets_429_while_another_user_is_answered(self):
        target = "/api/v1/datasets/rgb"
        ana, bob = S.basic("ana", self.passwords["ana"]), S.basic("bob", self.passwords["bob"])

        def flood():
            out, t0 = [], time.time()
            while time.time() - t0 < 2.5:
                out.append(S.request(self.server.port, target, ana)[0])
            return out

        flooded, polled = self.flood_while_polling(flood, lambda: S.request(self.server.port, target, bob)[0])
        self.assertIn(429, flooded)
        self.assertEqual(set(polled), {200})
        st, h, body = S.request(self.server.port, target, ana)
        if st == 429:
            self.assertIn("user 'ana'", json.loads(body)["error"]["message"])

    def test_metrics_move_as_requests_are_answered(self):
        time.sleep(1.5)  # a full bucket for 127.0.0.1
        before = metrics(self.server.port)
        target = boxquery("rgb", "0 99 0 59", 8)
        sizes = []
        for _ in range(5):
            st, _, body = S.request(self.server.port, target)
            self.assertEqual(st, 200)
            sizes.append(len(body))
        self.assertEqual(S.request(self.server.port, boxquery("nosuch", "0 1 0 1", 1))[0], 401)
        after = metrics(self.server.port)

        def delta(name, **labels):
            key = (name, tuple(sorted(labels.items())))
            return after.get(key, 0) - before.get(key, 0)

        route = {"route": "mod_visus:boxquery"}
        self.assertEqual(delta("hzio_http_requests_total", status="200", **route), 5)
        self.assertEqual(delta("hzio_http_requests_total", status="401", **route), 1)
        self.assertEqual(delta("hzio_http_request_duration_seconds_count", **route), 6)
        self.assertEqual(delta("hzio_http_request_duration_seconds_bucket", le="+Inf", **route), 6)
        self.assertGreaterEqual(delta("hzio_http_response_bytes_total", **route), sum(sizes))
        self.assertGreater(delta("hzio_cache_hits_total") + delta("hzio_cache_misses_total"), 0)
        self.assertGreaterEqual(after[("hzio_open_connections", ())], 1)
        self.assertEqual(after[("hzio_datasets", ())], 2)
        self.assertIn(("hzio_worker_queue_depth", ()), after)
        self.assertIn(("hzio_cache_evictions_total", ()), after)

    def test_health_endpoints(self):
        for target, want in (("/health/live", "live"), ("/health/ready", "ready")):
            st, h, body = S.request(self.server.port, target)
            self.assertEqual(st, 200)
            self.assertEqual(json.loads(body)["status"], want)
        st, _, body = S.request(self.server.port, "/api/v1/health")
        self.assertEqual(st, 200)
        self.assertTrue(json.loads(body)["ready"])


class ReplyBudgetAndSignals(unittest.TestCase):
    """A 1024^3 uint8 dataset that was never written: every box query is 1 GiB of default values,
    assembled without touching the disk, so the test measures the server's own memory."""

    BUDGET_MB = 128

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hzio_budget_")
        cls.big = os.path.join(cls.tmp, "big.idx")
        subprocess.run([H.CLI, "create", cls.big, "--dims", "1024,1024,1024", "--field", "v:uint8"], check=True,
                       capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def start(self, extra=()):
        return H.HzioServer(["big=" + self.big, "tinyhz=" + H.GOLDEN + "/tiny/hz.idx"],
                            ["--max-query-mb", "1100", "--cache-mb", "8", "--reply-budget-mb", str(self.BUDGET_MB),
                             "--timeout", "2", "--min-send-kbps", "1024", "--threads", "4"] + list(extra),
                            stderr_path=os.path.join(self.tmp, "server.log"))

    def stall(self, port, n):
        """n connections that ask for 1 GiB and never read (every other one pipelines 3 requests,
        which must not keep its writes from timing out)."""
        target = boxquery("big", "0 1023 0 1023 0 1023", 30)
        conns = []
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % target).encode() * (3 if i % 2 else 1))
            conns.append(s)
        return conns

    def test_stalled_gigabyte_clients_stay_under_the_budget(self):
        server = self.start()
        try:
            baseline = rss_mib(server.proc.pid)
            conns = self.stall(server.port, 20)
            peak, served, t0 = baseline, 0, time.time()
            while time.time() - t0 < 6:
                st, _, body = S.request(server.port, boxquery("tinyhz", "0 3 0 3", 4))
                self.assertEqual((st, len(body)), (200, 16))
                served += 1
                peak = max(peak, rss_mib(server.proc.pid))
                time.sleep(0.05)
            self.assertGreater(served, 20)
            # Budget plus the process's own baseline and allocator slack, far from 20 GiB.
            self.assertLess(peak - baseline, self.BUDGET_MB + 64, (baseline, peak))
            m = metrics(server.port)
            self.assertLessEqual(m[("hzio_reply_bytes_in_flight", ())], self.BUDGET_MB << 20)
            # Stalled clients are dropped by the write timeout (2 x 2 s + a piece at 1 MiB/s).
            deadline = time.time() + 30
            while time.time() < deadline and metrics(server.port)[("hzio_open_connections", ())] > 1:
                time.sleep(0.5)
            self.assertLessEqual(metrics(server.port)[("hzio_open_connections", ())], 1)
            for s in conns:
                s.close()
            # A client that reads gets the whole gigabyte, right.
            st, h, body = S.request(server.port, boxquery("big", "0 1023 0 1023 0 1023", 30), timeout=120)
            self.assertEqual(st, 200)
            self.assertEqual(len(body), 1 << 30)
            self.assertEqual(int(h["content-length"]), 1 << 30)
            self.assertFalse(np.frombuffer(body, np.uint8).any())
            del body
            # zip streams as one zlib stream, sent chunked.
            st, h, body = S.request(server.port, boxquery("big", "0 1023 0 1023 0 511", 30, "zip"), timeout=120)
            self.assertEqual(st, 200)
            self.assertEqual(h.get("transfer-encoding"), "chunked")
            import zlib
            self.assertEqual(len(zlib.decompress(body)), 1 << 29)
        finally:
            self.assertEqual(server.stop(), 0)

    def test_sigterm_stops_within_5_seconds_with_stalled_clients(self):
        server = self.start(["--shutdown-grace", "3"])
        conns = self.stall(server.port, 5)
        time.sleep(1)
        seconds, status = server.terminate_timed()
        self.assertLess(seconds, 5)
        self.assertEqual(status, 0)
        server.stop()
        for s in conns:
            s.close()


class Reload(unittest.TestCase):
    def test_sighup_adds_and_removes_a_dataset_and_a_user_while_a_client_reads(self):
        tmp = tempfile.mkdtemp(prefix="hzio_reload_")
        g = H.GOLDEN
        pw = {"ana": "ana-pw-reload", "bob": "bob-pw-reload", "carol": "carol-pw-reload"}
        hashes = {u: S.passwd(p) for u, p in pw.items()}
        cfg = os.path.join(tmp, "hzio.json")

        def write(datasets, users):
            tmpname = cfg + ".tmp"
            S.write_config(tmpname, {"datasets": datasets,
                                     "users": [{"name": u, "secrets": [hashes[u]]} for u in users]})
            os.rename(tmpname, cfg)

        rgb = {"name": "rgb", "path": g + "/rgb_hz_raw/visus.idx", "public": True}
        write([rgb, {"name": "f32", "path": g + "/f32/visus.idx", "readers": ["ana", "bob"]}], ["ana", "bob"])
        server = H.HzioServer([], ["--config", cfg], stderr_path=os.path.join(tmp, "server.log"))
        stop, results = threading.Event(), []

        def reader():
            import http.client
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            while not stop.is_set():
                conn.request("GET", boxquery("rgb", "0 99 0 59", 8))
                r = conn.getresponse()
                results.append((r.status, len(r.read())))
            conn.close()

        t = threading.Thread(target=reader)
        t.start()
        try:
            time.sleep(0.3)
            ana, bob, carol = (S.basic(u, pw[u]) for u in ("ana", "bob", "carol"))
            self.assertEqual(S.request(server.port, "/api/v1/datasets/f32", bob)[0], 200)
            self.assertEqual(S.request(server.port, "/api/v1/datasets/lz", carol)[0], 401)
            # f32 goes, lz comes (for carol, who comes), bob goes.
            write([rgb, {"name": "lz", "path": g + "/lz/visus.idx", "readers": ["carol", "ana"]}], ["ana", "carol"])
            server.proc.send_signal(signal.SIGHUP)
            deadline = time.time() + 20
            while time.time() < deadline and S.request(server.port, "/api/v1/datasets/lz", carol)[0] != 200:
                time.sleep(0.1)
            self.assertEqual(S.request(server.port, "/api/v1/datasets/lz", carol)[0], 200)
            self.assertEqual(S.request(server.port, "/api/v1/datasets/lz", ana)[0], 200)
            self.assertEqual(S.request(server.port, "/api/v1/datasets/f32", ana)[0], 404)
            self.assertEqual(S.request(server.port, "/api/v1/datasets/f32", bob)[0], 401)  # bob is gone
            names = sorted(d["name"] for d in json.loads(S.request(server.port, "/api/v1/datasets", carol)[2]))
            self.assertEqual(names, ["lz", "rgb"])
            # A broken config is refused; the server keeps the previous one and keeps running.
            with open(cfg, "w") as f:
                f.write("{not json")
            server.proc.send_signal(signal.SIGHUP)
            time.sleep(1)
            self.assertIsNone(server.proc.poll())
            self.assertEqual(S.request(server.port, "/api/v1/datasets/lz", carol)[0], 200)
            m = metrics(server.port)
            self.assertEqual(m[("hzio_reloads_total", ())], 1)
            self.assertEqual(m[("hzio_reload_failures_total", ())], 1)
            time.sleep(0.3)
        finally:
            stop.set()
            t.join()
            status = server.stop()
            shutil.rmtree(tmp, ignore_errors=True)
        self.assertEqual(status, 0)
        # The reading client's keep-alive connection was never dropped and every reply was whole.
        self.assertGreater(len(results), 10)
        self.assertEqual({st for st, _ in results}, {200})
        self.assertEqual(len({n for _, n in results}), 1)


if __name__ == "__main__":
    unittest.main()
