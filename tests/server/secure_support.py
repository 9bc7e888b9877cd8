"""Helpers of the TLS, authentication and operations tests: a throw-away CA and server certificate
made with the openssl command line, secrets hashed by `hzio passwd`, config files, and small HTTP(S)
requests that return (status, headers, body) whatever the status."""
import base64
import http.client
import json
import os
import ssl
import subprocess

import server_harness as H


def make_ca(folder):
    """A CA and a server certificate for 127.0.0.1/localhost signed by it; returns (ca, cert, key)."""
    def run(*args):
        subprocess.run(["openssl"] + list(args), check=True, capture_output=True, cwd=folder)
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key",
        "-out", "ca.pem", "-days", "2", "-subj", "/CN=hzio test CA")
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server.key",
        "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(folder, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
        "server.pem", "-days", "2", "-extfile", "ext.cnf")
    return tuple(os.path.join(folder, n) for n in ("ca.pem", "server.pem", "server.key"))


def passwd(secret):
    """`hzio passwd` of `secret` (on stdin), checked to be one line."""
    out = subprocess.run([H.CLI, "passwd"], input=secret.encode(), capture_output=True, check=True).stdout.decode()
    assert out.count("\n") == 1 and out.startswith("$pbkdf2-sha256$"), out
    return out.strip()


def write_config(path, config):
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


def bearer(token):
    return {"Authorization": "Bearer " + token}


def request(port, target, headers=None, ca=None, method="GET", timeout=60, source=None):
    """One request on a fresh connection (https when `ca` is given); (status, headers dict lower-case, body)."""
    if ca:
        ctx = ssl.create_default_context(cafile=ca)
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=ctx,
                                           source_address=(source, 0) if source else None)
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                          source_address=(source, 0) if source else None)
    try:
        conn.request(method, target, headers=headers or {})
        r = conn.getresponse()
        body = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body
    finally:
        conn.close()
