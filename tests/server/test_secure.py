"""The server beyond loopback (issue 19): TLS with a self-signed CA (curl --cacert, Python's ssl,
the hzio remote client, the OpenVisus client), `hzio passwd`, users with Basic and Bearer secrets,
per-dataset readers and public datasets (401 for anonymous callers, 404 for callers who may not read,
identical to unknown names), lists filtered per caller, private caching and CORS for configured
origins, and secrets never in replies or logs."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse

import numpy as np

import secure_support as S
import server_harness as H

PASSWORDS = {"ana": "ana-Pa55word", "bob": "bob-Pa55word"}
BOB_TOKEN = "tok-7f3c9b1e5a2d4c6f8e0b"


def boxquery(name, box="0 9 0 9", toh=6, compression="raw"):
    return "/mod_visus?" + urllib.parse.urlencode(
        {"action": "boxquery", "dataset": name, "box": box, "toh": str(toh), "compression": compression},
        quote_via=urllib.parse.quote)


class Passwd(unittest.TestCase):
    def test_hash_is_salted_one_line_and_refuses_empty_input(self):
        a, b = S.passwd("same secret"), S.passwd("same secret")
        self.assertNotEqual(a, b)  # a fresh salt each time
        self.assertNotIn("same secret", a)
        scheme, iterations, salt, digest = a.split("$")[1:]
        self.assertEqual(scheme, "pbkdf2-sha256")
        self.assertGreaterEqual(int(iterations), 100000)
        r = subprocess.run([H.CLI, "passwd"], input=b"", capture_output=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no secret on standard input", r.stderr.decode())


class TlsAndUsers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hzio_secure_")
        cls.ca, cls.cert, cls.key = S.make_ca(cls.tmp)
        g = H.GOLDEN
        cls.paths = {"rgb": g + "/rgb_hz_raw/visus.idx", "f32": g + "/f32/visus.idx", "lz": g + "/lz/visus.idx"}
        config = {
            "datasets": [{"name": "rgb", "path": cls.paths["rgb"], "public": True},
                         {"name": "f32", "path": cls.paths["f32"], "readers": ["ana"]},
                         {"name": "lz", "path": cls.paths["lz"], "readers": ["bob"], "group": "private"}],
            "users": [{"name": "ana", "secrets": [S.passwd(PASSWORDS["ana"])]},
                      {"name": "bob", "secrets": [S.passwd(PASSWORDS["bob"]), S.passwd(BOB_TOKEN)]}],
            "tls_cert": cls.cert, "tls_key": cls.key, "cors_origins": ["https://viewer.example"],
            "access_log": os.path.join(cls.tmp, "access.log")}
        cls.log = os.path.join(cls.tmp, "stderr.log")
        cls.server = H.HzioServer([], ["--config", S.write_config(os.path.join(cls.tmp, "hzio.json"), config)],
                                  stderr_path=cls.log)
        cls.replies = []  # everything the server sent, searched for secrets at the end

    @classmethod
    def tearDownClass(cls):
        status = cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert status == 0, status

    def get(self, target, headers=None, **kw):
        st, h, body = S.request(self.server.port, target, headers, ca=self.ca, **kw)
        self.replies.append(json.dumps(h) + body.decode("latin-1"))
        return st, h, body

    def test_tls_with_the_ca_and_refusals_without(self):
        self.assertEqual(self.server.scheme, "https")
        url = self.server.base + "/health/live"
        r = subprocess.run(["curl", "-sS", "--cacert", self.ca, url], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["status"], "live")
        # Without the CA, the certificate does not verify; old protocol versions are refused.
        r = subprocess.run(["curl", "-sS", url], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("certificate", r.stderr)
        r = subprocess.run(["curl", "-sS", "--cacert", self.ca, "--tls-max", "1.1", url], capture_output=True,
                           text=True)
        self.assertNotEqual(r.returncode, 0)
        # Plain HTTP on the TLS port gets no reply.
        with self.assertRaises(Exception):
            S.request(self.server.port, "/health/live", timeout=5)

    def test_hzio_remote_client_over_https(self):
        url = self.server.base + "/mod_visus?dataset=rgb"
        out = os.path.join(self.tmp, "rgb.npy")
        r = subprocess.run([H.CLI, "read", url, "-o", out, "--ca-file", self.ca], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        want = os.path.join(self.tmp, "rgb_local.npy")
        subprocess.run([H.CLI, "read", self.paths["rgb"], "-o", want], check=True, capture_output=True)
        np.testing.assert_array_equal(np.load(out), np.load(want))
        r = subprocess.run([H.CLI, "info", url], capture_output=True, text=True, timeout=120,
                           env={k: v for k, v in os.environ.items() if k != "HZIO_CA_FILE"})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(url, r.stderr)
        # Credentials in the URL (what the OpenVisus client does) are sent as HTTP Basic.
        private = "https://ana:%s@127.0.0.1:%d/mod_visus?dataset=f32" % (PASSWORDS["ana"], self.server.port)
        r = subprocess.run([H.CLI, "info", private, "--ca-file", self.ca], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_openvisus_client_over_https(self):
        # OpenVisus 2.2.149 reads https through libcurl, which takes the CA from SSL_CERT_FILE. Its URL
        # parser cannot take `user:password@` (it fails with "stoi" before sending anything); it sends
        # HTTP Basic credentials given as the URL parameters ~auth_username and ~auth_password
        # (idx-format.md §7.9), which it removes from the URL before sending.
        env = dict(os.environ, SSL_CERT_FILE=self.ca, CURL_CA_BUNDLE=self.ca)
        script = ("import OpenVisus as ov, numpy as np, sys\n"
                  "db = ov.LoadDataset(sys.argv[1])\n"
                  "np.save(sys.argv[2], db.read(max_resolution=db.getMaxResolution()))\n")

        def openvisus_read(name, extra=""):
            out = os.path.join(self.tmp, "ov_%s.npy" % name)
            r = subprocess.run([sys.executable, "-c", script,
                                self.server.base + "/mod_visus?dataset=" + name + extra, out],
                               capture_output=True, text=True, timeout=300, env=env)
            return r, out

        r, out = openvisus_read("rgb")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        np.testing.assert_array_equal(np.load(out), H.load(self.paths["rgb"]).read())
        # A dataset only ana may read: with her password in OpenVisus's auth parameters, and without.
        r, out = openvisus_read("f32", "&~auth_username=ana&~auth_password=" + PASSWORDS["ana"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        np.testing.assert_array_equal(np.load(out), H.load(self.paths["f32"]).read())
        r, _ = openvisus_read("f32")
        self.assertNotEqual(r.returncode, 0, r.stdout)

    def test_access_matrix(self):
        ana, bob = S.basic("ana", PASSWORDS["ana"]), S.bearer(BOB_TOKEN)
        # Public: anyone.
        self.assertEqual(self.get(boxquery("rgb"))[0], 200)
        # Not public, anonymous: 401 with a challenge, for a known and an unknown name alike.
        for name in ("f32", "nosuch"):
            st, h, body = self.get(boxquery(name))
            self.assertEqual(st, 401, name)
            self.assertIn("Basic", h["www-authenticate"])
            self.assertIn("Bearer", h["www-authenticate"])
            self.assertIn("needs credentials", h["visus-errormsg"])
            st, h, body = self.get("/api/v1/datasets/%s" % name)
            self.assertEqual(st, 401)
            self.assertEqual(json.loads(body)["error"]["code"], "unauthorized")
        # Readers read; others get exactly what an unknown name gets.
        st, _, body = self.get(boxquery("f32", "0 7 0 7 0 7", 9), ana)
        self.assertEqual(st, 200)
        self.assertEqual(self.get("/api/v1/datasets/f32", ana)[0], 200)
        st_lz, h_lz, b_lz = self.get(boxquery("lz"), ana)
        st_no, h_no, b_no = self.get(boxquery("zz"), ana)
        self.assertEqual((st_lz, st_no), (404, 404))
        self.assertEqual(h_lz["visus-errormsg"].replace("(lz)", "(zz)"), h_no["visus-errormsg"])
        self.assertEqual(b_lz, b_no)
        st_lz, _, b_lz = self.get("/api/v1/datasets/lz/data", ana)
        st_no, _, b_no = self.get("/api/v1/datasets/zz/data", ana)
        self.assertEqual((st_lz, st_no), (404, 404))
        self.assertEqual(b_lz.replace(b"'lz'", b"'zz'"), b_no)
        # Bearer token of bob; bob's password as Basic.
        self.assertEqual(self.get(boxquery("lz"), bob)[0], 200)
        self.assertEqual(self.get(boxquery("lz"), S.basic("bob", PASSWORDS["bob"]))[0], 200)
        self.assertEqual(self.get(boxquery("f32"), bob)[0], 404)
        # Wrong credentials: 401 even for a public dataset.
        for bad in (S.basic("ana", "wrong"), S.basic("nobody", PASSWORDS["ana"]), S.bearer("nope"),
                    S.basic("bob", BOB_TOKEN + "x"), {"Authorization": "Digest xyz"},
                    {"Authorization": "Basic !!!notbase64"}):
            st, h, _ = self.get(boxquery("rgb"), bad)
            self.assertEqual(st, 401, bad)
            self.assertIn("not accepted", h["visus-errormsg"])

    def test_lists_are_filtered_per_caller(self):
        def names_xml(headers):
            st, _, body = self.get("/mod_visus?action=list", headers)
            self.assertEqual(st, 200)
            return sorted(n.split('"')[0] for n in body.decode().split('dataset name="')[1:])

        def names_json(headers):
            st, _, body = self.get("/api/v1/datasets", headers)
            self.assertEqual(st, 200)
            return sorted(d["name"] for d in json.loads(body))

        for names in (names_xml, names_json):
            self.assertEqual(names({}), ["rgb"])
            self.assertEqual(names(S.basic("ana", PASSWORDS["ana"])), ["f32", "rgb"])
            self.assertEqual(names(S.bearer(BOB_TOKEN)), ["lz", "rgb"])
        # The private group is not even named to others.
        st, _, body = self.get("/mod_visus?action=list", S.basic("ana", PASSWORDS["ana"]))
        self.assertNotIn(b"private", body)
        st, _, body = self.get("/mod_visus?action=list", S.bearer(BOB_TOKEN))
        self.assertIn(b'<group name="private">', body)

    def test_private_caching_and_configured_cors(self):
        ana = S.basic("ana", PASSWORDS["ana"])
        st, h, _ = self.get(boxquery("f32", "0 7 0 7 0 7", 9), ana)
        self.assertEqual(st, 200)
        self.assertTrue(h["cache-control"].startswith("private"), h["cache-control"])
        self.assertIn("Authorization", h["vary"])
        st, h, _ = self.get(boxquery("rgb"))
        self.assertTrue(h["cache-control"].startswith("public"), h["cache-control"])
        # Only the configured origin is allowed.
        st, h, _ = self.get(boxquery("rgb"), {"Origin": "https://viewer.example"})
        self.assertEqual(h.get("access-control-allow-origin"), "https://viewer.example")
        st, h, _ = self.get(boxquery("rgb"), {"Origin": "https://evil.example"})
        self.assertNotIn("access-control-allow-origin", h)
        st, h, _ = self.get("/api/v1/datasets", {"Origin": "https://viewer.example",
                                                 "Access-Control-Request-Headers": "authorization"},
                            method="OPTIONS")
        self.assertEqual(st, 204)
        self.assertIn("Authorization", h["access-control-allow-headers"])

    def test_zz_secrets_never_in_replies_or_logs(self):
        # Runs last (zz): by then every other test has sent credentials, right and wrong.
        self.test_access_matrix()
        with open(self.log, "rb") as f:
            stderr = f.read().decode("latin-1")
        with open(os.path.join(self.tmp, "access.log")) as f:
            access = f.read()
        lines = [json.loads(line) for line in access.splitlines()]
        self.assertGreater(len(lines), 20)
        self.assertTrue(any(line["user"] == "ana" for line in lines))
        self.assertTrue(all(set(line) >= {"time", "remote", "method", "target", "status", "bytes", "ms"}
                            for line in lines))
        everything = stderr + access + "".join(self.replies)
        for secret in list(PASSWORDS.values()) + [BOB_TOKEN]:
            self.assertNotIn(secret, everything)
            self.assertNotIn(S.basic("x", secret)["Authorization"][6:], everything)
        self.assertNotIn("Authorization", access)


if __name__ == "__main__":
    unittest.main()
