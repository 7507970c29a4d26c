// What a packet-level driver found wrong while it ran (a message delivered twice, a key reduced
// at the wrong shard, a step left unfinished): every error is counted for the report's
// protocol_errors, and the first texts are kept for tests and logs (a systematic fault would
// otherwise keep millions of strings).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hfsim {

class ErrorLog {
 public:
  void Add(std::string text) {
    ++m_count;
    if (m_texts.size() < kKeptTexts) m_texts.push_back(std::move(text));
  }
  uint64_t Count() const { return m_count; }
  /// The first kKeptTexts errors, in the order they happened.
  const std::vector<std::string>& Texts() const { return m_texts; }

  static constexpr size_t kKeptTexts = 100;

 private:
  std::vector<std::string> m_texts;
  uint64_t m_count = 0;
};

}  // namespace hfsim
