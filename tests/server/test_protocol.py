"""mod_visus (idx-format.md §7) and JSON API (design.md §5) over real sockets: exact header
spellings, every §7.8 error row, the JSON errors, limits, traversal attempts, keep-alive and
pipelining, HEAD/OPTIONS, slow clients and the connection cap."""
import http.client
import json
import socket
import time
import unittest
import zlib

import numpy as np

import server_harness as H


def get(port, target, headers=None, method="GET"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request(method, target, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    hdrs = r.getheaders()  # names exactly as sent
    c.close()
    return r.status, dict(hdrs), body


def raw(port, data, timeout=10):
    """Sends bytes as they are (no client normalisation) and returns everything read back."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    break
                chunks.append(b)
        except socket.timeout:
            pass
        return b"".join(chunks)


class Protocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.paths = H.golden_datasets()
        cls.server = H.HzioServer(["%s=%s" % kv for kv in cls.paths.items()],
                                  ["--max-query-bytes", "10000", "--max-blocks", "6", "--timeout", "2"])
        cls.port = cls.server.port

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def visus(self, query, **kw):
        return get(self.port, "/mod_visus?" + query, **kw)

    def assertVisusError(self, query, status, prefix):
        st, h, body = self.visus(query)
        self.assertEqual(st, status, query)
        self.assertIn("visus-errormsg", h, query)
        self.assertTrue(h["visus-errormsg"].startswith(prefix), (query, h["visus-errormsg"]))
        self.assertIn(" __FILE__(", h["visus-errormsg"])
        return h, body

    # --- §7.8, one test per row -------------------------------------------------------------
    def test_unknown_action(self):
        self.assertVisusError("action=nothing&dataset=rgb", 404, "unknown action(nothing)")

    def test_unknown_dataset(self):
        for action in ("readdataset", "blockquery", "boxquery", "rangequery"):
            self.assertVisusError("action=%s&dataset=zzz&block=0&box=0%%200%%200%%200&toh=0" % action, 404,
                                  "Cannot find dataset(zzz)")

    def test_list_wrong_format(self):
        self.assertVisusError("action=list&format=csv", 404, "wrong format(csv)")

    def test_blocks_empty(self):
        self.assertVisusError("action=blockquery&dataset=rgb&field=rgb", 404, "blocks empty()")

    def test_block_unknown_field(self):
        self.assertVisusError("action=blockquery&dataset=rgb&field=nope&block=0", 404, "Cannot find field(nope)")

    def test_single_absent_block(self):
        self.assertVisusError("action=blockquery&dataset=rgb&block=53", 404, "block_query->executeAndWait failed")

    def test_composite_with_absent_part(self):
        st, h, body = self.visus("action=rangequery&dataset=rgb&field=rgb&compression=zip&block=1%2053%2054")
        self.assertEqual(st, 200)
        self.assertEqual(h["response-compose-num"], "3")
        self.assertEqual([h["status-0"], h["status-1"], h["status-2"]], ["200", "404", "200"])
        self.assertTrue(h["visus-errormsg-1"].startswith("block_query->executeAndWait failed"))
        self.assertEqual(h["body-size-1"], "0")
        for i in (0, 2):
            for k in ("visus-compression", "visus-dtype", "visus-layout", "visus-nsamples", "Content-Type",
                      "Content-Length", "Content-Transfer-Encoding"):
                self.assertIn("%s-%d" % (k, i), h)
        self.assertEqual(h["visus-nsamples-0"], "8 8")
        s0, s2 = int(h["body-size-0"]), int(h["body-size-2"])
        self.assertEqual(len(body), s0 + s2)
        self.assertEqual(len(zlib.decompress(body[:s0])), 64 * 3)
        self.assertEqual(len(zlib.decompress(body[s0:])), 64 * 3)
        self.assertIn("visus-errormsg-1", h["Access-Control-Expose-Headers"].split(","))

    def test_block_encoding_failed(self):
        self.assertVisusError("action=blockquery&dataset=f32&block=0&compression=jpg", 500,
                              "Encoding converting to row major failed")

    def test_box_unknown_field(self):
        self.assertVisusError("action=boxquery&dataset=rgb&field=nope&box=0%2099%200%2059&toh=4", 400,
                              "Cannot find fieldname(nope)")

    def test_box_rejected_before_execution(self):
        for q in ("toh=99", "toh=4&time=7", "fromh=2&toh=4", "toh=4&box=500%20600%200%201", "toh=4&box=x"):
            if "box=" not in q:
                q += "&box=0%2099%200%2059"
            self.assertVisusError("action=boxquery&dataset=rgb&" + q, 400, "dataset->beginBoxQuery() failed")

    def test_box_encoding_failed(self):
        self.assertVisusError("action=boxquery&dataset=f32&box=0%2015%200%207%200%203&toh=9&compression=png", 500,
                              "NetResponse encodeBuffer failed")

    # --- replies -----------------------------------------------------------------------------
    def test_box_reply_headers_exact_spelling(self):
        st, h, body = self.visus("action=boxquery&box=10%2050%205%2030&compression=zip&dataset=rgb&field=rgb"
                                 "&fromh=0&maxh=13&time=0%2E000000&toh=9")
        self.assertEqual(st, 200)
        self.assertEqual(h["visus-nsamples"], "10 6")
        self.assertEqual(h["visus-dtype"], "uint8[3]")
        self.assertEqual(h["visus-compression"], "zip")
        self.assertEqual(h["Content-Type"], "application/zip")
        self.assertEqual(h["Content-Transfer-Encoding"], "binary")
        self.assertNotIn("Content-Encoding", h)
        self.assertEqual(len(zlib.decompress(body)), 10 * 6 * 3)
        src = np.fromfile(H.GOLDEN + "/rgb_source_uint8x3_y60_x100.raw", np.uint8).reshape(60, 100, 3)
        got = np.frombuffer(zlib.decompress(body), np.uint8).reshape(6, 10, 3)
        np.testing.assert_array_equal(got, src[8:29:4, 12:49:4])

    def test_ping(self):
        st, h, body = self.visus("action=ping&dataset=rgb")
        self.assertEqual((st, h["block-query-support-aggregation"], body), (200, "1", b""))

    def test_readdataset_forms(self):
        st, h, body = self.visus("dataset=rgb")
        self.assertEqual(st, 200)
        self.assertTrue(body.startswith(b"(version)\n6\n(box)\n0 99 0 59\n"))
        self.assertEqual(h["visus-typename"], "IdxDataset")
        st, h, body = self.visus("action=readdataset&dataset=rgb&format=xml")
        self.assertIn(b'<box value="0 100 0 60" />', body)

    def test_etag_revalidation(self):
        q = "action=boxquery&dataset=f32&box=0%2015%200%207%200%203&toh=9&compression=zip"
        st, h, body = self.visus(q)
        st2, h2, body2 = self.visus(q, headers={"If-None-Match": h["ETag"]})
        self.assertEqual((st2, body2), (304, b""))
        self.assertIn("max-age", h["Cache-Control"])

    def test_head_and_options(self):
        st, h, body = get(self.port, "/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=8", method="HEAD")
        st2, h2, body2 = get(self.port, "/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=8")
        self.assertEqual((st, body), (200, b""))
        self.assertEqual(h["Content-Length"], str(len(body2)))
        st, h, _ = get(self.port, "/api/v1/datasets", method="OPTIONS", headers={"Origin": "http://x"})
        self.assertEqual(st, 204)
        self.assertEqual(h["Access-Control-Allow-Origin"], "*")

    # --- JSON API ----------------------------------------------------------------------------
    def assertJsonError(self, target, status, code, method="GET"):
        st, h, body = get(self.port, target, method=method)
        self.assertEqual(st, status, target)
        err = json.loads(body)["error"]
        self.assertEqual(err["code"], code, target)
        self.assertTrue(err["message"])

    def test_json_api(self):
        st, h, body = get(self.port, "/api/v1/datasets")
        self.assertEqual(st, 200)
        self.assertEqual(sorted(d["name"] for d in json.loads(body)), sorted(self.paths))
        st, h, body = get(self.port, "/api/v1/datasets/f32")
        meta = json.loads(body)
        self.assertEqual(meta["dims"], [16, 8, 4])
        self.assertEqual(len(meta["levels"]), meta["maxh"] + 1)
        st, h, body = get(self.port, "/api/v1/datasets/f32/data?level=9&format=npy")
        self.assertEqual(st, 200)
        import io
        arr = np.load(io.BytesIO(body))
        src = np.fromfile(H.GOLDEN + "/f32_source_float32_z4_y8_x16.raw", np.float32).reshape(4, 8, 16)
        np.testing.assert_array_equal(arr, src)
        self.assertEqual(h["X-Hzio-Shape"], "4,8,16")
        st, h, body = get(self.port, "/api/v1/health")
        self.assertEqual(json.loads(body)["status"], "ok")

    def test_json_errors(self):
        self.assertJsonError("/api/v1/datasets/none", 404, "not_found")
        self.assertJsonError("/api/v1/datasets/f32/data?field=x", 404, "not_found")
        self.assertJsonError("/api/v1/datasets/f32/data?level=10", 400, "out_of_range")
        self.assertJsonError("/api/v1/datasets/f32/data?box=1:2", 400, "invalid_argument")
        self.assertJsonError("/api/v1/datasets/f32/data?format=tiff", 400, "invalid_argument")
        self.assertJsonError("/api/v1/datasets/rgb/data", 413, "too_large")
        self.assertJsonError("/api/v1/datasets", 405, "method_not_allowed", method="DELETE")
        self.assertJsonError("/api/v1/x?a=%4", 400, "invalid_argument")

    # --- limits ------------------------------------------------------------------------------
    def test_query_limits(self):
        st, h, body = self.visus("action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=13")
        self.assertEqual(st, 413)
        self.assertEqual(json.loads(body)["error"]["code"], "too_large")
        st, _, _ = self.visus("action=blockquery&dataset=rgb&block=0%201%202%203%204%205%206")
        self.assertEqual(st, 413)
        st, _, _ = self.visus("action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=10")
        self.assertEqual(st, 200)

    def test_header_and_body_limits(self):
        reply = raw(self.port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 431"), reply[:100])
        reply = raw(self.port, b"POST /api/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n" + b"x" * 70000)
        self.assertTrue(reply.startswith(b"HTTP/1.1 413"), reply[:100])
        reply = raw(self.port, b"NOT A REQUEST\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 400"), reply[:100])

    def test_path_traversal(self):
        for target in (b"/../../../../etc/passwd", b"/%2e%2e/%2e%2e/%2e%2e/etc/passwd", b"/..%2f..%2f..%2fetc%2fpasswd",
                       b"/mod_visus?dataset=../../../../etc/passwd", b"/mod_visus?dataset=%2Fetc%2Fpasswd",
                       b"/api/v1/datasets/..%2F..%2F..%2Fetc%2Fpasswd", b"/api/v1/datasets/%2Fetc%2Fpasswd/data",
                       b"/mod_visus?action=readdataset&dataset=" + H.GOLDEN.encode() + b"/f32/visus.idx"):
            reply = raw(self.port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            status = int(reply.split(b" ", 2)[1])
            self.assertIn(status, (400, 404), target)
            self.assertNotIn(b"root:", reply)
            self.assertNotIn(b"(version)", reply)

    def test_keep_alive_and_pipelining(self):
        reqs = b"".join(b"GET /mod_visus?action=boxquery&dataset=tinyhz&box=0%203%200%203&toh=" + str(h).encode() +
                        b" HTTP/1.1\r\nHost: x\r\n\r\n" for h in range(5))
        reqs += b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        reply = raw(self.port, reqs)
        self.assertEqual(reply.count(b"HTTP/1.1 200"), 6)
        order = [reply.find(b"visus-nsamples: " + n) for n in (b"1 1", b"2 1", b"2 2", b"4 2", b"4 4")]
        self.assertTrue(all(o >= 0 for o in order) and order == sorted(order), order)

    def test_slow_client_is_cut_while_others_are_served(self):
        slow = socket.create_connection(("127.0.0.1", self.port))
        slow.sendall(b"GET /api/v1/health HTTP/1.1\r\nHo")
        t0 = time.time()
        for _ in range(5):
            self.assertEqual(get(self.port, "/api/v1/health")[0], 200)
        slow.settimeout(10)
        data = slow.recv(100)  # the server closes it after --timeout 2
        self.assertEqual(data, b"")
        self.assertLess(time.time() - t0, 9)
        slow.close()


    def test_flood_of_slow_and_bad_clients(self):
        """40 stalled connections and a burst of garbage do not stop good requests."""
        slow = []
        for i in range(40):
            s = socket.create_connection(("127.0.0.1", self.port))
            s.sendall(b"GET /mod_visus?action=ping HTTP/1.1\r\nX-Slow-%d: " % i)
            slow.append(s)
        for junk in (b"\x00\x01\x02garbage\r\n\r\n", b"GET /%zz HTTP/1.1\r\nConnection: close\r\n\r\n",
                     b"GET / HTTP/9.9\r\nConnection: close\r\n\r\n",
                     b"BREW /pot HTTP/1.1\r\nConnection: close\r\n\r\n") * 5:
            self.assertTrue(raw(self.port, junk, timeout=3).startswith(b"HTTP/1.1 "), junk)
        t0 = time.time()
        for _ in range(20):
            st, h, body = self.visus("action=boxquery&dataset=tinyhz&box=0%203%200%203&toh=4")
            self.assertEqual(st, 200)
            self.assertEqual(len(body), 16)
        self.assertLess(time.time() - t0, 5)
        for s in slow:
            s.close()


class ConnectionCap(unittest.TestCase):
    def test_cap_answers_503_and_recovers(self):
        with H.HzioServer(["tinyhz=" + H.GOLDEN + "/tiny/hz.idx"], ["--max-connections", "3"]) as server:
            idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(3)]
            time.sleep(0.3)
            reply = raw(server.port, b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertTrue(reply.startswith(b"HTTP/1.1 503"), reply[:80])
            for s in idle:
                s.close()
            deadline = time.time() + 5
            while time.time() < deadline:
                try:
                    if get(server.port, "/api/v1/health")[0] == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.1)
            else:
                self.fail("the server did not recover after idle connections closed")


if __name__ == "__main__":
    unittest.main()
