"""nginx (Debian's package) on loopback in front of hzio instances, configured from the deployment
template server/deploy/nginx-hzio.conf, for the several-instances tests."""
import os
import shutil
import subprocess
import time

import server_harness as H

TEMPLATE = os.path.join(H.HERE, "..", "..", "server", "deploy", "nginx-hzio.conf")


class Nginx:
    def __init__(self, folder, upstream_ports):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(nginx):
            raise RuntimeError("nginx is not installed (scripts/setup-deps.sh installs Debian's nginx)")
        self.prefix = os.path.join(folder, "nginx")
        os.makedirs(self.prefix, exist_ok=True)
        self.port = H.free_port()
        with open(TEMPLATE) as f:
            conf = f.read()
        upstreams = "\n".join("    server 127.0.0.1:%d max_fails=1 fail_timeout=10s;" % p for p in upstream_ports)
        conf = conf.replace("@@PREFIX@@", self.prefix).replace("@@LISTEN@@", "127.0.0.1:%d" % self.port)
        conf = conf.replace("@@UPSTREAMS@@", upstreams)
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = subprocess.Popen([nginx, "-p", self.prefix, "-c", self.conf], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + 20
        import urllib.request
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("nginx exited: " + self.proc.stderr.read().decode())
            try:
                urllib.request.urlopen(self.base + "/health/live", timeout=2).read()
                return
            except Exception:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("nginx did not answer in 20 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
