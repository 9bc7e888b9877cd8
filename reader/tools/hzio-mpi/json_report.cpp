#include "json_report.h"

#include <cstdio>

namespace hzio_mpi_tool {

namespace {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

double GiBPerSecond(const hzio::mpi::IoStats& s) {
  return s.seconds > 0 ? static_cast<double>(s.data_bytes) / (1024.0 * 1024.0 * 1024.0) / s.seconds : 0.0;
}

}  // namespace

std::string JsonReport(int ranks, const hzio::mpi::IoStats& s, bool reader, std::optional<bool> verified) {
  std::string j = "{\"ranks\":" + std::to_string(ranks) + ",\"bytes\":" + std::to_string(s.data_bytes) +
                  ",\"seconds\":" + Num(s.seconds) + ",\"gib_per_s\":" + Num(GiBPerSecond(s)) + ",\"phases\":{";
  if (reader) {
    j += "\"io\":" + Num(s.max.io) + ",\"aggregate\":" + Num(s.max.aggregate) + ",\"hz\":" + Num(s.max.hz) +
         ",\"restructure\":" + Num(s.max.restructure);
  } else {
    j += "\"restructure\":" + Num(s.max.restructure) + ",\"hz\":" + Num(s.max.hz) + ",\"aggregate\":" +
         Num(s.max.aggregate) + ",\"io\":" + Num(s.max.io);
  }
  j += "},\"aggregators\":[";
  for (size_t i = 0; i < s.per_aggregator.size(); ++i)
    j += std::string(i ? "," : "") + "{\"rank\":" + std::to_string(s.per_aggregator[i].rank) +
         ",\"bytes\":" + std::to_string(s.per_aggregator[i].bytes) + "}";
  j += "],\"rounds\":" + std::to_string(s.rounds) + ",\"threads\":" + std::to_string(s.local_threads);  // rank 0's
  if (s.overlapped) j += ",\"overlapped\":true";  // rounds' I/O ran beside the next round's work
  if (s.hz_window) j += ",\"hz_window\":true";    // the window held units in hz order
  if (verified) j += std::string(",\"verify\":\"") + (*verified ? "ok" : "failed") + "\"";
  if (!s.note.empty()) j += ",\"note\":\"" + s.note + "\"";  // plain text of the library, no quotes
  return j + "}";
}

std::string TextReport(int ranks, const hzio::mpi::IoStats& s, bool reader, std::optional<bool> verified) {
  std::string t = std::string(reader ? "read " : "wrote ") + std::to_string(s.data_bytes) + " bytes with " +
                  std::to_string(ranks) + " ranks in " + Num(s.seconds) + " s (" + Num(GiBPerSecond(s)) +
                  " GiB/s); phases restructure " + Num(s.max.restructure) + " s, hz " + Num(s.max.hz) +
                  " s, aggregate " + Num(s.max.aggregate) + " s, io " + Num(s.max.io) + " s; " +
                  std::to_string(s.aggregators) + " aggregators, " + std::to_string(s.file_bytes) + " file bytes";
  if (s.rounds > 1) t += ", " + std::to_string(s.rounds) + " rounds (memory budget)" + (s.overlapped ? ", overlapped" : "");
  if (verified) t += std::string("; verify ") + (*verified ? "ok" : "FAILED");
  if (!s.note.empty()) t += "\nnote: " + s.note;
  return t;
}

}  // namespace hzio_mpi_tool
