"""hzio-viewer opens the demo dataset locally and through `hzio serve`, renders a non-blank image,
reports sane --stats, shows 2-D colour datasets as colours, and rejects bad input clearly."""
import subprocess
import unittest

import numpy as np

import viewer_harness as h

SIZE = "256x256"


class OpenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.demo = h.make_demo(128)
        cls.info = h.dataset_info(cls.demo)

    def check_stats(self, stats):
        maxh = self.info["maxh"]
        self.assertLessEqual(0, stats["level"])
        self.assertLessEqual(stats["level"], maxh)
        self.assertEqual(len(stats["box"]), 6)
        for d in range(3):
            lo, hi = stats["box"][2 * d], stats["box"][2 * d + 1]
            self.assertTrue(0 <= lo < hi <= self.info["dims"][d], stats["box"])
        self.assertGreater(stats["bytes_loaded"], 0)
        self.assertGreater(stats["seconds_to_first_image"], 0)
        self.assertGreaterEqual(stats["seconds_to_final_image"], stats["seconds_to_first_image"])

    def test_local_and_remote_render_the_same_non_blank_image(self):
        local, local_image, _ = h.run_viewer(self.demo, "open_local", "--size", SIZE)
        self.check_stats(local)
        self.assertGreater(h.non_background_fraction(local_image), 0.2)
        self.assertIn(local["volume_mapper"], ("gpu", "cpu"))
        server = h.Server(self.demo)
        try:
            remote, remote_image, _ = h.run_viewer(server.url("demo"), "open_remote", "--size", SIZE)
        finally:
            server.close()
        self.check_stats(remote)
        self.assertEqual(remote["level"], local["level"])
        self.assertEqual(remote["box"], local["box"])
        self.assertEqual(remote["bytes_loaded"], local["bytes_loaded"])
        self.assertGreaterEqual(h.psnr(local_image, remote_image), 50)

    def test_slices_render_non_blank(self):
        stats, image, _ = h.run_viewer(self.demo, "open_slices", "--size", SIZE, "--render", "slices")
        self.check_stats(stats)
        self.assertGreater(h.non_background_fraction(image), 0.2)

    def test_2d_colour_dataset_shows_its_colours(self):
        h.DATA.mkdir(parents=True, exist_ok=True)
        npy, idx = h.DATA / "rgb.npy", h.DATA / "rgb.idx"
        y, x = np.mgrid[0:300, 0:400]
        rgb = np.stack([x * 255 // 399, y * 255 // 299, (x + y) % 256], axis=-1).astype(np.uint8)
        np.save(npy, rgb)
        if not idx.exists():
            subprocess.run([h.CLI, "convert", str(npy), str(idx), "--dtype", "uint8[3]", "--field", "color"],
                           check=True, capture_output=True, timeout=60)
        stats, image, _ = h.run_viewer(idx, "open_rgb", "--size", "256x200")
        self.assertEqual(len(stats["box"]), 4)
        # The default 2-D camera looks at the centre of the image: the sample (200, 150).
        centre = image[100, 128].astype(int)
        expected = rgb[150, 200].astype(int)
        self.assertTrue(np.all(np.abs(centre - expected) <= 8), f"centre pixel {centre}, sample {expected}")
        # Green grows upwards (y up), red to the right.
        self.assertGreater(int(image[60, 128, 1]), int(image[140, 128, 1]))
        self.assertGreater(int(image[100, 170, 0]), int(image[100, 90, 0]))

    def test_bad_input_is_reported(self):
        missing = h.DATA / "no-such-dataset.idx"
        proc = subprocess.run([h.VIEWER, str(missing), "--stats"], capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1)
        self.assertIn(str(missing), proc.stderr)
        proc = subprocess.run([h.VIEWER, str(self.demo), "--size", "wide"], capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--size", proc.stderr)
        proc = subprocess.run([h.VIEWER, str(self.demo), "--stats", "--field", "pressure"],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("pressure", proc.stderr)


if __name__ == "__main__":
    unittest.main()
