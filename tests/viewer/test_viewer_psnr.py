"""Planned views (one sample per pixel, frustum-clipped) of the 256^3 demo dataset load at most
1/16 of the full-resolution bytes, and their screenshots keep a PSNR of at least 35 dB against
full-resolution renders of the whole dataset from the same cameras (design.md §7, issue 7)."""
import unittest

import numpy as np

import viewer_harness as h

SIZE = "256x256"
CENTER = np.array([128.0, 128.0, 128.0])
OBLIQUE = np.array([1.0, -1.3, 0.8]) / np.linalg.norm([1.0, -1.3, 0.8])

# name -> (camera, extra options)
CAMERAS = {
    "far_oblique": (h.camera_arg(CENTER + 3400 * OBLIQUE, CENTER), []),
    "top_down": (h.camera_arg((128, 128, 2400), (128, 128, 128), (0, 1, 0)), []),
    "inside_corner": (h.camera_arg((200, 56, 200), (256, 0, 256)), []),
    "from_shell_to_corner": (h.camera_arg((175, 81, 175), (256, 0, 256)), []),
    "far_slices": (h.camera_arg(CENTER + 3000 * OBLIQUE, CENTER), ["--render", "slices"]),
}


class PsnrTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.demo = h.make_demo(256)
        info = h.dataset_info(cls.demo)
        cls.maxh = info["maxh"]
        cls.full_bytes = int(np.prod(info["dims"])) * 4

    def test_planned_views(self):
        for name, (camera, extra) in CAMERAS.items():
            with self.subTest(view=name):
                planned, image, _ = h.run_viewer(self.demo, f"psnr_{name}", "--size", SIZE, "--camera", camera, *extra)
                full, reference, _ = h.run_viewer(self.demo, f"psnr_{name}_fullres", "--size", SIZE, "--camera", camera,
                                                  "--level", self.maxh, "--no-clip", *extra)
                value = h.psnr(image, reference)
                fraction = planned["bytes_loaded"] / self.full_bytes
                h.log(f"{name}: level {planned['level']} box {planned['box']} bytes {fraction:.4f} of full, "
                      f"PSNR {value:.2f} dB, final {planned['seconds_to_final_image']:.2f} s "
                      f"(full res {full['seconds_to_final_image']:.2f} s)")
                self.assertEqual(full["level"], self.maxh)
                self.assertGreaterEqual(full["bytes_loaded"], self.full_bytes)
                self.assertGreater(h.non_background_fraction(reference), 0.02)
                self.assertLessEqual(planned["bytes_loaded"], self.full_bytes / 16)
                self.assertGreaterEqual(value, 35.0)


if __name__ == "__main__":
    unittest.main()
