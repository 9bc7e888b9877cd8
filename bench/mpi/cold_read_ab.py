"""A/B of ways to read one file cold (bench/mpi/RESULTS.md, "cold restart read"): sequential buffered
reads of 1, 8 and 64 MiB, the same with posix_fadvise(WILLNEED) 64 MiB ahead, several threads, and
O_DIRECT at queue depth 1, 4 and 8, into buffers of 4 KiB pages and of 2 MiB huge pages; the page
cache is dropped before each (root). Each line gives the wall time and the CPU seconds the process
spent (user + system: a buffered read copies every byte out of the page cache, an O_DIRECT read has
the device write straight into the buffer). The buffers' pages matter to O_DIRECT here: a request
into 4 KiB pages is cut into many small ones (the device takes at most 254 segments per request),
one into huge pages is not (RESULTS.md, "direct reads from huge pages").

    python3 bench/mpi/cold_read_ab.py FILE [REPS]
"""
import ctypes, mmap, os, sys, time, threading
path = sys.argv[1]; reps = int(sys.argv[2]) if len(sys.argv) > 2 else 2
size = os.path.getsize(path)
def drop():
    os.sync(); open("/proc/sys/vm/drop_caches", "w").write("3\n")
HUGE = 2 << 20
def buffer(req, huge):
    # An anonymous mapping, huge pages asked for (2 MiB aligned) or refused; faulted in before timing.
    m = mmap.mmap(-1, req + HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # shared would be shmem: no THP
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    at = (-base) % HUGE
    view = memoryview(m)[at:at + req]
    if huge: m.madvise(mmap.MADV_HUGEPAGE, at, req)
    else: m.madvise(mmap.MADV_NOHUGEPAGE)
    view[:] = b"\1" * req
    if huge and not any(l.startswith("AnonHugePages") and l.split()[1] != "0" for l in open("/proc/self/smaps_rollup")):
        print("  (no huge pages were given: transparent huge pages are off here)")
    return m, view
def seq(req, direct=False, fadv=0, threads=1, huge=False):
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECT if direct else 0))
    chunks = list(range(0, size, req)); nxt = [0]; lock = threading.Lock(); adv = [0]
    bufs = [buffer(req, huge) for _ in range(threads)]
    def work(k):
        buf = bufs[k][1]
        while True:
            with lock:
                if nxt[0] >= len(chunks): return
                off = chunks[nxt[0]]; nxt[0] += 1
                if fadv and adv[0] < off + fadv:
                    end = min(size, off + fadv); os.posix_fadvise(fd, adv[0], end - adv[0], os.POSIX_FADV_WILLNEED); adv[0] = end
            n = min(req, size - off)
            if direct: n = (n + 4095) // 4096 * 4096
            os.preadv(fd, [buf[:n]], off)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    c = os.times(); t = time.perf_counter(); [x.start() for x in ts]; [x.join() for x in ts]
    dt = time.perf_counter() - t; e = os.times()
    os.close(fd); return dt, (e.user - c.user) + (e.system - c.system)
cases = [("buffered 1 MiB qd1", dict(req=1<<20)), ("buffered 1 MiB + fadvise 64 MiB", dict(req=1<<20, fadv=64<<20)),
         ("buffered 8 MiB qd1", dict(req=8<<20)), ("buffered 64 MiB qd1", dict(req=64<<20)),
         ("buffered 8 MiB x4 threads", dict(req=8<<20, threads=4)),
         ("O_DIRECT 1 MiB qd1", dict(req=1<<20, direct=True)), ("O_DIRECT 8 MiB qd1", dict(req=8<<20, direct=True)),
         ("O_DIRECT 8 MiB x4 threads", dict(req=8<<20, direct=True, threads=4)),
         ("O_DIRECT 4 MiB x8 threads", dict(req=4<<20, direct=True, threads=8)),
         ("O_DIRECT 8 MiB qd1, huge pages", dict(req=8<<20, direct=True, huge=True)),
         ("O_DIRECT 8 MiB x2 threads, huge pages", dict(req=8<<20, direct=True, threads=2, huge=True)),
         ("buffered 8 MiB qd1, huge pages", dict(req=8<<20, huge=True))]
print(f"{path}: {size/2**20:.0f} MiB, load {os.getloadavg()[0]:.1f}")
for r in range(reps):
    for name, kw in cases:
        drop(); dt, cpu = seq(**kw)
        print(f"  {name:38s} {dt:.3f} s  {size/dt/2**30:.2f} GiB/s  cpu {cpu:.3f} s", flush=True)
