"""pytest setup for the crash-consistency, concurrency and output-path tests (see CMakeLists.txt)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
