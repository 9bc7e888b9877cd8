"""Runs the OpenVisus server (ModVisus + NetServer, loopback) for tests and benchmarks:
python openvisus_server.py PORT NAME=PATH [NAME=PATH ...]"""
import os
import sys

os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")
import OpenVisus as ov  # noqa: E402


def main():
    port = int(sys.argv[1])
    entries = "".join("<dataset name='%s' url='%s' />" % tuple(a.split("=", 1)) for a in sys.argv[2:])
    modvisus = ov.ModVisus()
    modvisus.configureDatasets(ov.ConfigFile.fromString("<visus>%s</visus>" % entries))
    server = ov.NetServer(port, modvisus)
    server.runInThisThread()


if __name__ == "__main__":
    main()
