/// Deterministic crash points for the crash-consistency tests (tests/safety/). Writers call
/// CrashPoint("what") between the steps that change files: with `HZIO_TEST_CRASH_AT=N` in the
/// environment the N-th call (1-based, counted per process) kills the process with SIGKILL, as a
/// power cut or `kill -9` would, so a test can stop a write at every step in turn.
/// `HZIO_TEST_CRASH_AT=N@R` crashes only the process whose MPI rank (OMPI_COMM_WORLD_RANK or
/// PMI_RANK) is R. `HZIO_TEST_CRASH_TRACE=PATH` appends one line per call ("<rank> <n> <what>",
/// rank "-" outside MPI) to PATH, which is how a test learns how many points an operation has. Without these variables a call
/// costs one relaxed atomic load.
#pragma once

#include <string_view>

namespace hzio {

void CrashPoint(std::string_view what);

}  // namespace hzio
