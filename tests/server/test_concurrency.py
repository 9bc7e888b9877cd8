"""A bounded concurrency test: 16 clients on keep-alive connections send a shuffled mix of good
box/block queries and bad requests; every good reply must equal what OpenVisus reads from the
files, every bad one must get its error status, and the server must stay up."""
import http.client
import random
import shutil
import tempfile
import threading
import time
import unittest
import urllib.parse
import zlib

import numpy as np

import server_harness as H

CLIENTS = 16
REQUESTS_PER_CLIENT = 30


def box_target(name, box, level, field, t):
    inclusive = " ".join("%d %d" % (a, b - 1) for a, b in zip(*box))
    q = {"action": "boxquery", "dataset": name, "box": inclusive, "fromh": "0", "toh": str(level),
         "field": field, "time": "%f" % t, "compression": "zip"}
    return "/mod_visus?" + urllib.parse.urlencode(q, quote_via=urllib.parse.quote)


class Concurrency(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hzio_server_conc_")
        cls.paths = {"rgb": H.GOLDEN + "/rgb_hz_raw/visus.idx", "f32": H.GOLDEN + "/f32/visus.idx"}
        cls.paths.update(H.make_datasets(cls.tmp))
        cls.server = H.HzioServer(["%s=%s" % kv for kv in cls.paths.items()], ["--threads", "4", "--cache-mb", "1"])
        # Expected replies, from OpenVisus reading the files.
        rng = random.Random(7)
        cls.good = []
        for name, path in cls.paths.items():
            db = H.load(path)
            fields, times = list(db.getFields()), list(db.getTimesteps())
            for _ in range(6):
                box = rng.choice(H.sub_boxes(db))
                level = rng.randint(0, db.getMaxResolution())
                field, t = rng.choice(fields), rng.choice(times)
                try:
                    want = db.read(logic_box=box, max_resolution=level, field=field, time=t)
                except Exception:
                    continue
                cls.good.append((box_target(name, box, level, field, t), want))
        cls.bad = [("/mod_visus?action=boxquery&dataset=nope&box=0%200&toh=0", 404),
                   ("/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=77", 400),
                   ("/mod_visus?action=frobnicate", 404),
                   ("/mod_visus?action=blockquery&dataset=rgb", 404),
                   ("/api/v1/datasets/none/data", 404),
                   ("/mod_visus?a=%zz", 400),
                   ("/../../etc/passwd", 400)]

    @classmethod
    def tearDownClass(cls):
        status = cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert status == 0

    def test_mixed_clients(self):
        self.assertGreater(len(self.good), 10)
        failures, counts = [], {"good": 0, "bad": 0}
        lock = threading.Lock()

        def client(seed):
            rng = random.Random(seed)
            conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
            for _ in range(REQUESTS_PER_CLIENT):
                try:
                    if rng.random() < 0.7:
                        target, want = rng.choice(self.good)
                        conn.request("GET", target)
                        r = conn.getresponse()
                        body = r.read()
                        if r.status != 200:
                            raise AssertionError("%s -> %d %s" % (target, r.status, r.getheader("visus-errormsg")))
                        got = np.frombuffer(zlib.decompress(body), want.dtype).reshape(want.shape)
                        if not np.array_equal(got, want):
                            raise AssertionError("wrong samples for " + target)
                        key = "good"
                    else:
                        target, status = rng.choice(self.bad)
                        conn.request("GET", target)
                        r = conn.getresponse()
                        r.read()
                        if r.status != status:
                            raise AssertionError("%s -> %d, expected %d" % (target, r.status, status))
                        if r.getheader("Connection", "").lower() == "close":
                            conn.close()
                            conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
                        key = "bad"
                    with lock:
                        counts[key] += 1
                except Exception as e:  # collected; the main thread fails the test
                    with lock:
                        failures.append(repr(e))
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
            conn.close()

        t0 = time.time()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        self.assertFalse(any(t.is_alive() for t in threads), "clients still running after 300 s")
        self.assertEqual(failures, [])
        self.assertEqual(counts["good"] + counts["bad"], CLIENTS * REQUESTS_PER_CLIENT)
        self.assertGreater(counts["bad"], 0)
        self.assertLess(time.time() - t0, 300)


if __name__ == "__main__":
    unittest.main()
