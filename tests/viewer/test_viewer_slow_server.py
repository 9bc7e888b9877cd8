"""A slow server does not freeze the viewer: with every HTTP response delayed by a proxy, the UI
event loop keeps ticking (its longest stall stays well under the delay and is no longer than a
render), the final image still arrives, and it matches the image from the fast server. Slices keep
renders short in software OpenGL, so the stall bound measures waiting on I/O, not drawing."""
import unittest

import viewer_harness as h

DELAY = 3.0
SIZE = "256x256"
OPTIONS = ["--size", SIZE, "--render", "slices"]


class SlowServerTest(unittest.TestCase):
    def test_event_loop_keeps_running(self):
        demo = h.make_demo(128)
        server = h.Server(demo)
        proxy = h.SlowProxy(server.base, DELAY)
        try:
            fast, fast_image, _ = h.run_viewer(server.url("demo"), "slow_server_reference", *OPTIONS)
            slow, slow_image, _ = h.run_viewer(proxy.url("demo"), "slow_server", *OPTIONS)
        finally:
            proxy.close()
            server.close()
        h.log(f"slow server: {proxy.requests} delayed requests, final image after "
              f"{slow['seconds_to_final_image']:.2f} s, longest event-loop stall "
              f"{slow['max_event_loop_gap_seconds']:.3f} s, longest render {slow['max_render_seconds']:.3f} s")
        self.assertGreaterEqual(proxy.requests, 3)
        # Every request waited DELAY seconds, in sequence: open, overview, final level.
        self.assertGreaterEqual(slow["seconds_to_final_image"], 3 * DELAY)
        # The event loop never waited on the network ...
        self.assertLess(slow["max_event_loop_gap_seconds"], DELAY / 2)
        # ... only on rendering.
        self.assertLessEqual(slow["max_event_loop_gap_seconds"], slow["max_render_seconds"] + 0.3)
        self.assertEqual(slow["level"], fast["level"])
        self.assertGreaterEqual(h.psnr(slow_image, fast_image), 50)


if __name__ == "__main__":
    unittest.main()
