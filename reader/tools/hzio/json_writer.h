/// A minimal streaming JSON writer for `hzio info --json` (keeps the tools free of a JSON library).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace hzio::cli {

class JsonWriter {
 public:
  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }
  JsonWriter& Key(const std::string& key) {
    Separate();
    out_ += Quote(key) + ":";
    after_key_ = true;
    return *this;
  }
  JsonWriter& String(const std::string& v) { return Raw(Quote(v)); }
  JsonWriter& Int(int64_t v) { return Raw(std::to_string(v)); }
  JsonWriter& Bool(bool v) { return Raw(v ? "true" : "false"); }
  JsonWriter& Double(double v) {
    if (!std::isfinite(v)) return Raw("null");
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return Raw(buf);
  }
  JsonWriter& IntArray(const std::vector<int64_t>& v) {
    BeginArray();
    for (int64_t x : v) Int(x);
    return EndArray();
  }
  JsonWriter& DoubleArray(const std::vector<double>& v) {
    BeginArray();
    for (double x : v) Double(x);
    return EndArray();
  }
  const std::string& str() const { return out_; }

 private:
  static std::string Quote(const std::string& s) {
    std::string q = "\"";
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        q += '\\';
        q += static_cast<char>(c);
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        q += buf;
      } else {
        q += static_cast<char>(c);
      }
    }
    return q + "\"";
  }
  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty() && !first_.back()) out_ += ",";
    if (!first_.empty()) first_.back() = false;
  }
  JsonWriter& Raw(const std::string& text) {
    Separate();
    out_ += text;
    return *this;
  }
  JsonWriter& Open(char c) {
    Separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& Close(char c) {
    out_ += c;
    first_.pop_back();
    return *this;
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace hzio::cli
