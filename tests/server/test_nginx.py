"""Two hzio instances behind nginx (the documented deployment, server/deploy/nginx-hzio.conf):
the OpenVisus client reads the same arrays through nginx as from each instance and from the files,
ETags agree across instances, and when one instance is killed mid-load the clients' requests are
retried (by nginx, or by the client for a reply cut mid-body) and succeed, never with wrong data."""
import http.client
import os
import shutil
import signal
import tempfile
import threading
import time
import unittest
import urllib.parse

import numpy as np

import nginx_support as N
import secure_support as S
import server_harness as H


def boxquery(name, box, toh):
    return "/mod_visus?" + urllib.parse.urlencode(
        {"action": "boxquery", "dataset": name, "box": box, "toh": str(toh), "compression": "zip"},
        quote_via=urllib.parse.quote)


class BehindNginx(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hzio_nginx_")
        g = H.GOLDEN
        cls.paths = {"rgb": g + "/rgb_hz_raw/visus.idx", "f32": g + "/f32/visus.idx", "lz": g + "/lz/visus.idx"}
        args = ["%s=%s" % kv for kv in cls.paths.items()]
        extra = ["--threads", "2", "--config", S.write_config(os.path.join(cls.tmp, "c.json"),
                                                               {"trusted_proxies": ["127.0.0.1"]})]
        cls.instances = [H.HzioServer(args, extra, stderr_path=os.path.join(cls.tmp, "i%d.log" % i)) for i in range(2)]
        cls.nginx = N.Nginx(cls.tmp, [i.port for i in cls.instances])

    @classmethod
    def tearDownClass(cls):
        cls.nginx.stop()
        for i in cls.instances:
            i.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_a_openvisus_client_reads_the_same_through_nginx(self):
        for name, path in self.paths.items():
            local = H.load(path)
            maxh = local.getMaxResolution()
            for box in H.sub_boxes(local)[:2]:
                for level in (maxh // 2, maxh):
                    want = local.read(logic_box=box, max_resolution=level)
                    for base in [self.nginx.base] + [i.base for i in self.instances]:
                        got = H.load("%s/mod_visus?dataset=%s" % (base, name)).read(logic_box=box, max_resolution=level)
                        np.testing.assert_array_equal(got, want, "%s %s %s" % (base, name, level))
        # The same ETag whichever instance answers.
        target = boxquery("f32", "0 7 0 7 0 7", 6)
        etags = {S.request(i.port, target)[1]["etag"] for i in self.instances}
        etags |= {S.request(self.nginx.port, target)[1]["etag"] for _ in range(4)}
        self.assertEqual(len(etags), 1, etags)

    def test_b_one_instance_killed_mid_load(self):
        targets = []
        for name, path in self.paths.items():
            db = H.load(path)
            p1, p2 = db.getLogicBox()
            box = " ".join("%d %d" % (a, b - 1) for a, b in zip(p1, p2))
            for level in range(db.getMaxResolution() // 2, db.getMaxResolution() + 1):
                st, _, body = S.request(self.instances[1].port, boxquery(name, box, level))
                self.assertEqual(st, 200)
                targets.append((boxquery(name, box, level), body))
        stop, results, wrong, lock = threading.Event(), {"ok": 0, "retried": 0, "failed": 0}, [], threading.Lock()

        def client(seed):
            rng = np.random.default_rng(seed)
            conn = None
            while not stop.is_set():
                target, want = targets[rng.integers(len(targets))]
                for attempt in range(6):
                    try:
                        if conn is None:
                            conn = http.client.HTTPConnection("127.0.0.1", self.nginx.port, timeout=30)
                        conn.request("GET", target)
                        r = conn.getresponse()
                        body = r.read()
                        if r.status == 200:
                            if body != want:
                                with lock:
                                    wrong.append(target)
                            with lock:
                                results["ok"] += 1
                                results["retried"] += attempt > 0
                            break
                    except (OSError, http.client.HTTPException):
                        pass
                    if conn is not None:
                        conn.close()
                        conn = None
                    time.sleep(0.05)
                else:
                    with lock:
                        results["failed"] += 1
            if conn is not None:
                conn.close()

        threads = [threading.Thread(target=client, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        time.sleep(1.5)
        before_kill = results["ok"]
        self.instances[0].proc.send_signal(signal.SIGKILL)
        self.instances[0].proc.wait()
        time.sleep(2.5)
        stop.set()
        for t in threads:
            t.join()
        self.assertEqual(wrong, [])
        self.assertEqual(results["failed"], 0, results)
        self.assertGreater(before_kill, 10)
        self.assertGreater(results["ok"] - before_kill, 10, results)


if __name__ == "__main__":
    unittest.main()
