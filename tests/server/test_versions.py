"""A dataset rewritten under reading clients (issue 14): the server notices each commit (a new
`.idx` renamed over the old one, its data in a new folder, as hzio's writers commit), answers every
reply from exactly one version, and derives ETags from the version, so a revalidation after a
commit gets the new data and two instances serving the same files give the same ETags."""
import http.client
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse

import numpy as np

import secure_support as S
import server_harness as H

SHAPE = (40, 48, 64)  # z, y, x


def boxquery(name, toh=18):
    return "/mod_visus?" + urllib.parse.urlencode(
        {"action": "boxquery", "dataset": name, "box": "0 63 0 47 0 39", "toh": str(toh), "compression": "raw"},
        quote_via=urllib.parse.quote)


class Rewrites(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hzio_versions_")
        cls.versions = {}
        for name, offset in (("a", 0.0), ("b", 0.5)):
            data = (np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE) + offset)
            npy = os.path.join(cls.tmp, name + ".npy")
            np.save(npy, data)
            subprocess.run([H.CLI, "convert", npy, os.path.join(cls.tmp, name, "d.idx"), "--blocksperfile", "2",
                            "--bitsperblock", "12"], check=True, capture_output=True)
            cls.versions[name] = data.tobytes()
        cls.served = os.path.join(cls.tmp, "served")
        os.makedirs(cls.served)
        cls.generation = 0
        cls.publish("a")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def publish(cls, version):
        """Commits `version` the way hzio's writers do: data in a new folder first, then the header
        renamed over the old one (old folders stay, as readers may still use them)."""
        cls.generation += 1
        gen = "gen%d" % cls.generation
        shutil.copytree(os.path.join(cls.tmp, version, "d"), os.path.join(cls.served, gen))
        with open(os.path.join(cls.tmp, version, "d.idx")) as f:
            text = f.read()
        text = re.sub(r"\(filename_template\)\n[^\n]*", "(filename_template)\n./%s/%%04x.bin" % gen, text)
        tmpname = os.path.join(cls.served, "d.idx.tmp")
        with open(tmpname, "w") as f:
            f.write(text)
        os.rename(tmpname, os.path.join(cls.served, "d.idx"))

    def test_each_reply_is_one_version_and_etags_follow_versions(self):
        server = H.HzioServer(["d=" + os.path.join(self.served, "d.idx")], ["--threads", "4", "--cache-mb", "4"])
        stop, replies, errors = threading.Event(), [], []

        def reader():
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            while not stop.is_set():
                conn.request("GET", boxquery("d"))
                r = conn.getresponse()
                body = r.read()
                if r.status != 200:
                    errors.append((r.status, r.getheader("visus-errormsg")))
                    continue
                replies.append((r.getheader("ETag"), body))
            conn.close()

        threads = [threading.Thread(target=reader) for _ in range(4)]
        for t in threads:
            t.start()
        try:
            for version in ("b", "a", "b", "a", "b", "a", "b", "a"):
                time.sleep(0.25)
                self.publish(version)
            time.sleep(0.25)
        finally:
            stop.set()
            for t in threads:
                t.join()
        try:
            self.assertEqual(errors, [])
            self.assertGreater(len(replies), 20)
            seen = {"a": 0, "b": 0}
            body_of_etag = {}
            for etag, body in replies:
                which = [k for k, v in self.versions.items() if v == body]
                self.assertEqual(len(which), 1, "a reply mixing versions (or neither)")
                seen[which[0]] += 1
                # One ETag never stands for two different bodies.
                self.assertEqual(body_of_etag.setdefault(etag, which[0]), which[0])
            self.assertGreater(seen["a"], 0)
            self.assertGreater(seen["b"], 0)
            self.assertGreaterEqual(len(body_of_etag), 3)
            # Revalidation after a commit: the old ETag no longer matches; the new data comes back.
            st, h, _ = S.request(server.port, boxquery("d"))
            old = h["etag"]
            self.assertEqual(S.request(server.port, boxquery("d"), {"If-None-Match": old})[0], 304)
            current = "a" if self.versions["a"] == S.request(server.port, boxquery("d"))[2] else "b"
            self.publish("b" if current == "a" else "a")
            st, h, body = S.request(server.port, boxquery("d"), {"If-None-Match": old})
            self.assertEqual(st, 200)
            self.assertNotEqual(h["etag"], old)
            self.assertNotEqual(body, self.versions[current])
        finally:
            self.assertEqual(server.stop(), 0)

    def test_two_instances_give_the_same_etags(self):
        args = ["d=" + os.path.join(self.served, "d.idx")]
        with H.HzioServer(args) as one, H.HzioServer(args, ["--threads", "2"]) as two:
            for target in (boxquery("d"), boxquery("d", 9), "/mod_visus?action=readdataset&dataset=d",
                           "/api/v1/datasets/d/data?level=12&format=npy"):
                st1, h1, b1 = S.request(one.port, target)
                st2, h2, b2 = S.request(two.port, target)
                self.assertEqual((st1, st2), (200, 200), target)
                self.assertEqual(h1["etag"], h2["etag"], target)
                self.assertEqual(b1, b2, target)


if __name__ == "__main__":
    unittest.main()
