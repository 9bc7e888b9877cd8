"""Zooming in (scripted cameras moving towards a corner of the demo dataset) loads a smaller box
at a finer level; zooming back out returns to the whole box at a coarse level."""
import unittest

import numpy as np

import viewer_harness as h

SIZE = "256x256"


def volume(box):
    return int(np.prod([box[2 * d + 1] - box[2 * d] for d in range(len(box) // 2)]))


class ZoomTest(unittest.TestCase):
    def test_zoom_in_loads_smaller_box_at_finer_level(self):
        demo = h.make_demo(256)
        corner = np.array([256.0, 0.0, 256.0])
        towards = np.array([1.0, -1.0, 1.0]) / np.sqrt(3)
        center = np.array([128.0, 128.0, 128.0])
        # Far outside, then inside the volume ever closer to the corner, always looking at it.
        cameras = [h.camera_arg(center - 3000 * towards, center)]
        cameras += [h.camera_arg(corner - d * towards, corner) for d in (220, 120, 60)]
        results = []
        for i, camera in enumerate(cameras):
            stats, image, _ = h.run_viewer(demo, f"zoom_{i}", "--size", SIZE, "--camera", camera)
            h.log(f"zoom {i}: level {stats['level']} box {stats['box']} bytes {stats['bytes_loaded']}")
            self.assertGreater(h.non_background_fraction(image), 0.02)
            results.append(stats)
        self.assertEqual(volume(results[0]["box"]), 256 ** 3)
        for before, after in zip(results, results[1:]):
            self.assertLess(volume(after["box"]), volume(before["box"]))
            self.assertGreaterEqual(after["level"], before["level"])
            self.assertLess(after["bytes_loaded"], h.dataset_info(demo)["dims"][0] ** 3 * 4)
        self.assertGreater(results[-1]["level"], results[0]["level"])
        self.assertLess(volume(results[-1]["box"]), 256 ** 3 // 64)


if __name__ == "__main__":
    unittest.main()
