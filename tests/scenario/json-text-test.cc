// The strict JSON reader (sim/scenario/json-text.h): what nlohmann's parser accepts silently or crashes
// on later — duplicate keys, deep nesting, NUL bytes, huge files — is refused with the source,
// the JSON path and what is accepted.
#include "sim/scenario/json-text.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "sim/scenario/utf8.h"

namespace hfsim {
namespace {

UserError Refusal(std::string_view text, const JsonTextLimits& limits = {}) {
  auto parsed = ParseJsonText(text, "in.json", limits);
  EXPECT_FALSE(parsed) << "accepted: " << text;
  return parsed ? UserError{} : parsed.Error();
}

TEST(JsonText, ParsesWhatNlohmannParses) {
  const std::string text =
      R"({"a": [1, 2.5, -3, true, null, "x\u00e9"], "b": {"c": {}, "d": []}, "e": 1e308})";
  auto parsed = ParseJsonText(text, "in.json");
  ASSERT_TRUE(parsed) << parsed.Error().ToString();
  EXPECT_EQ(parsed.Value(), nlohmann::json::parse(text));
  EXPECT_EQ(parsed.Value().dump(), nlohmann::json::parse(text).dump());
}

TEST(JsonText, DuplicateKeysAreRefusedWithTheirObjectsPath) {
  UserError error = Refusal(R"({"name": "a", "name": "b"})");
  EXPECT_EQ(error.where, "in.json");
  EXPECT_NE(error.message.find("the key \"name\" appears twice"), std::string::npos);
  error = Refusal(R"({"topology": {"dimensions": [{"size": 4}, {"size": 8, "size": 2}]}})");
  EXPECT_EQ(error.where, "in.json: topology.dimensions[1]") << error.ToString();
  EXPECT_NE(error.message.find("\"size\""), std::string::npos);
  // The same key in different objects is fine.
  EXPECT_TRUE(ParseJsonText(R"({"a": {"k": 1}, "b": {"k": 2}, "k": 3})", "in.json"));
}

TEST(JsonText, NestingBeyondTheLimitIsRefusedWithoutRecursion) {
  // 65,536 levels used to crash (stack overflow while formatting the error); a million now
  // gives one line naming the limit.
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  UserError error = Refusal(deep);
  EXPECT_NE(error.message.find("nested deeper than 64"), std::string::npos) << error.ToString();
  std::string in_name = R"({"name": )";
  for (int i = 0; i < 100000; ++i) in_name += R"({"a": )";
  error = Refusal(in_name);
  std::string path = "in.json: name";  // the top object, then 63 objects under key "a"
  for (int i = 0; i < 63; ++i) path += ".a";
  EXPECT_EQ(error.where, path);
  // 64 levels are accepted, 65 are not.
  EXPECT_TRUE(ParseJsonText(std::string(64, '[') + std::string(64, ']'), "in.json"));
  EXPECT_FALSE(ParseJsonText(std::string(65, '[') + std::string(65, ']'), "in.json"));
}

TEST(JsonText, NulBytesIllFormedUtf8AndHugeNumbersAreRefused) {
  UserError error = Refusal(std::string("{\"name\": \"a\"}\0garbage", 21));
  EXPECT_NE(error.message.find("byte 13 is NUL"), std::string::npos) << error.ToString();
  error = Refusal("{\"name\": \"a\xff\"}");
  EXPECT_NE(error.message.find("not valid JSON"), std::string::npos) << error.ToString();
  error = Refusal(R"({"x": 1e400})");
  EXPECT_NE(error.message.find("accepted: numbers within +-1.8e308"), std::string::npos);
  // Named by its JSON path, with its line and column (it was the file alone).
  EXPECT_EQ(error.where, "in.json: x") << error.ToString();
  error = Refusal("{\"a\": {\"b\": [1,\n  [2], 3,\n  -1e999]}}");
  EXPECT_EQ(error.where, "in.json: a.b[3]") << error.ToString();
  EXPECT_NE(error.message.find("got -1e999 (line 3, column "),
            std::string::npos)
      << error.ToString();
  error = Refusal(R"({"x": 1} trailing)");
  EXPECT_NE(error.message.find("not valid JSON"), std::string::npos);
}

TEST(JsonText, SizeLimitIsCheckedBeforeParsing) {
  UserError error = Refusal(R"({"name": "abcdefgh"})", {10, 64});
  EXPECT_EQ(error.message, "20 bytes; accepted: at most 10");
}

TEST(JsonText, ReadingStopsAtTheLimit) {
  // /dev/zero never ends: it is refused as the device it is before a byte is read (reading up
  // to the limit from standard input is input-files-test's).
  auto text = ReadTextFile("/dev/zero", "the scenario file", 1 << 20);
  ASSERT_FALSE(text);
  EXPECT_NE(text.Error().message.find("is a character device"), std::string::npos);
  auto missing = LoadJsonFile("/nonexistent/x.json", "the scenario file");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.Error().message.find("No such file or directory"), std::string::npos);
  // A symlink loop says so, rather than "does not exist".
  const auto dir = std::filesystem::temp_directory_path() / ("hfsim-loop-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink(dir / "a", dir / "b");
  std::filesystem::create_symlink(dir / "b", dir / "a");
  auto loop = LoadJsonFile((dir / "a").string(), "the scenario file");
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(loop);
  EXPECT_NE(loop.Error().message.find("Too many levels of symbolic links"), std::string::npos)
      << loop.Error().ToString();
}

TEST(Utf8, FirstInvalidByteIsFound) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("ab\xff"), 2u);            // never valid
  EXPECT_EQ(FirstInvalidUtf8("ab\xc3"), 2u);            // truncated sequence
  EXPECT_EQ(FirstInvalidUtf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("x\xed\xa0\x80"), 1u);     // a UTF-16 surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("\xe2\x28\xa1"), 0u);      // bad continuation byte
}

}  // namespace
}  // namespace hfsim
