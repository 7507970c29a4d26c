// A fresh directory per test for the end-to-end CLI tests, removed afterwards: its name holds the
// test's name and the process id, because ctest runs test executables in parallel.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <unistd.h>

#include <gtest/gtest.h>

namespace hfsim::test {

class ScratchDirectoryTest : public ::testing::Test {
 protected:
  /// `prefix` starts the directory's name (one per test file, so leftovers say where they came from).
  explicit ScratchDirectoryTest(std::string prefix) : m_prefix(std::move(prefix)) {}

  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            (m_prefix + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  /// Writes `text` to the file `name` in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(m_dir / name, std::ios::binary) << text;
    return (m_dir / name).string();
  }

  std::filesystem::path m_dir;

 private:
  std::string m_prefix;
};

}  // namespace hfsim::test
