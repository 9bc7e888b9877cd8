"""The example notebook (python/examples/cursory_analysis.ipynb) runs from top to bottom against
`hzio serve` (nbclient, a real Jupyter kernel), so it cannot rot: open by URL, coarse level,
histogram, slice, zoomed sub-box."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbclient
import nbformat
import numpy as np

import hzio
from conftest import Server

SOURCE = Path(os.environ.get("HZIO_SOURCE_DIR", Path(__file__).resolve().parents[2]))
NOTEBOOK = SOURCE / "python" / "examples" / "cursory_analysis.ipynb"


def test_example_notebook_runs(tmp_path, monkeypatch):
    npy = tmp_path / "field.npy"
    subprocess.run([sys.executable, str(SOURCE / "scripts" / "make_demo_field.py"), "--size", "96",
                    "--out", str(npy)], check=True)
    idx = tmp_path / "demo" / "demo.idx"
    ds = hzio.create(idx, shape=(96, 96, 96), fields={"density": "float32"},
                     physic_box=((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)))
    with ds.writer() as w:
        w.write(np.load(npy, mmap_mode="r"), "density")
    server = Server({"demo": idx})
    try:
        monkeypatch.setenv("HZIO_EXAMPLE_URL", server.url("demo"))
        monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        nb = nbformat.read(NOTEBOOK, as_version=4)
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        server.stop()
    out_dir = Path(os.environ.get("HZIO_TEST_ARTIFACTS", tmp_path))
    out_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out_dir / "cursory_analysis.executed.ipynb")

    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if o.output_type == "display_data" and "image/png" in o.data]
    assert len(images) >= 3, f"expected the histogram, the slice and the zoom, got {len(images)} images"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "density at level 15 of 21" in text, text
    assert "slicing and box reads agree" in text, text
    reprs = [o.data["text/plain"] for o in outputs if o.output_type == "execute_result"]
    assert any(server.url("demo") in r and "density float32" in r for r in reprs), reprs
