"""Storage faults under a running server (issues 14 and 19): block files that are truncated,
vanish, are replaced by a directory, a FIFO or a character device while the server runs. The
clients who ask for those blocks get a clear error naming the file (a file missing before the
server ever read it is the format's missing block), never samples; every other query, /health and /metrics
keep answering; SIGTERM still stops the server within 5 s.

Relies on the block reads of WP blocksource (pread, O_NONBLOCK, regular files only, kChanged): with
the memory-mapped reads of before, a truncated file read as data and a FIFO blocked a worker."""
import os
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

SHAPE = (16, 64, 64)  # z, y, x: float32, 16 KiB blocks (bitsperblock 12), 2 blocks per file


def blockquery(name, block):
    return "/mod_visus?" + urllib.parse.urlencode(
        {"action": "blockquery", "dataset": name, "block": str(block), "compression": "raw"},
        quote_via=urllib.parse.quote)


class StorageFaults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hzio_faults_")
        data = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE) + 1.0
        npy = os.path.join(cls.tmp, "d.npy")
        np.save(npy, data)
        cls.idx = os.path.join(cls.tmp, "d.idx")
        subprocess.run([H.CLI, "convert", npy, cls.idx, "--blocksperfile", "2", "--bitsperblock", "12",
                        "--compression", "raw"], check=True, capture_output=True)
        cls.files = sorted(os.listdir(os.path.join(cls.tmp, "d")))
        assert len(cls.files) >= 7, cls.files
        cls.server = H.HzioServer(["d=" + cls.idx], ["--threads", "2", "--cache-mb", "1", "--timeout", "2",
                                                     "--shutdown-grace", "2"],
                                  stderr_path=os.path.join(cls.tmp, "server.log"))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def path(self, i):
        return os.path.join(self.tmp, "d", self.files[i])

    def first_block(self, i):
        return int(self.files[i].split(".")[0], 16)  # a file is named by its first block (idx-format.md §4.4)

    def assert_clear_error(self, block, *words):
        st, h, body = S.request(self.server.port, blockquery("d", block), timeout=30)
        self.assertNotEqual(st, 200, "a faulty block was answered as data")
        message = h.get("visus-errormsg", "") + body.decode("latin-1")
        self.assertIn(self.path(0).rsplit("/", 1)[0], message)  # names the file
        for w in words:
            self.assertIn(w, message)
        return st

    def assert_alive(self):
        self.assertEqual(S.request(self.server.port, "/health/live", timeout=5)[0], 200)
        self.assertEqual(S.request(self.server.port, "/metrics", timeout=5)[0], 200)
        st, _, body = S.request(self.server.port, blockquery("d", 0), timeout=30)
        self.assertEqual((st, len(body)), (200, 4 << 12))

    def test_faults(self):
        self.assert_alive()
        # Truncated to half its size.
        with open(self.path(1), "r+b") as f:
            f.truncate(os.path.getsize(self.path(1)) // 2)
        self.assert_clear_error(self.first_block(1) + 1)
        self.assert_alive()
        # Vanished, after the server read blocks from it, while the header still names it: a fault,
        # not the format's missing block (defaults would be wrong samples handed out as right).
        st, _, body = S.request(self.server.port, blockquery("d", self.first_block(2)), timeout=30)
        self.assertEqual((st, len(body)), (200, 4 << 12))
        os.remove(self.path(2))
        self.assert_clear_error(self.first_block(2) + 1, "vanished after its blocks were read")
        self.assert_alive()
        # Missing before anyone read it: indistinguishable from a sparse dataset's absent file
        # (idx-format.md §4.6), answered as the missing block (404 part), never as samples.
        os.remove(self.path(6))
        st, h, body = S.request(self.server.port, blockquery("d", self.first_block(6)), timeout=30)
        self.assertEqual(st, 404)
        self.assertEqual(body, b"")
        self.assert_alive()
        # Replaced by a directory.
        os.remove(self.path(3))
        os.mkdir(self.path(3))
        self.assert_clear_error(self.first_block(3))
        self.assert_alive()
        # Replaced by a FIFO nobody writes to: an error, not a stuck worker.
        os.remove(self.path(4))
        os.mkfifo(self.path(4))
        t0 = time.time()
        self.assert_clear_error(self.first_block(4))
        self.assertLess(time.time() - t0, 10)
        self.assert_alive()
        # Replaced by a character device (/dev/zero's numbers).
        os.remove(self.path(5))
        os.mknod(self.path(5), 0o600 | __import__("stat").S_IFCHR, os.makedev(1, 5))
        self.assert_clear_error(self.first_block(5))
        self.assert_alive()
        # And it still stops on time.
        self.assertLess(self.server.terminate_timed()[0], 5)


class StuckWorkers(unittest.TestCase):
    """What the server guarantees on its own, whatever the block reads do: with every worker stuck
    in a read of a FIFO, /health and /metrics still answer and SIGTERM still stops it in 5 s."""

    def test_health_and_sigterm_with_every_worker_stuck(self):
        tmp = tempfile.mkdtemp(prefix="hzio_stuck_")
        try:
            data = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
            npy = os.path.join(tmp, "d.npy")
            np.save(npy, data)
            idx = os.path.join(tmp, "d.idx")
            subprocess.run([H.CLI, "convert", npy, idx, "--blocksperfile", "2", "--bitsperblock", "12"], check=True,
                           capture_output=True)
            files = sorted(os.listdir(os.path.join(tmp, "d")))
            fifo = os.path.join(tmp, "d", files[1])
            os.remove(fifo)
            os.mkfifo(fifo)
            server = H.HzioServer(["d=" + idx], ["--threads", "2", "--shutdown-grace", "2"],
                                  stderr_path=os.path.join(tmp, "server.log"))
            block = int(files[1].split(".")[0], 16)
            askers = [threading.Thread(target=lambda: S.request(server.port, blockquery("d", block), timeout=20))
                      for _ in range(4)]
            for t in askers:
                t.start()
            time.sleep(1)
            for target in ("/health/live", "/metrics", "/api/v1/health"):
                st, _, _ = S.request(server.port, target, timeout=5)
                self.assertEqual(st, 200, target)
            seconds, status = server.terminate_timed()
            self.assertLess(seconds, 5)
            self.assertEqual(status, 0)
            server.stop()
            # Whoever was stuck on the FIFO gets unblocked for the threads to finish.
            fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
            os.close(fd)
            for t in askers:
                t.join(timeout=30)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
