// Classic pcap (not pcapng): a 24-byte global header and a 16-byte header per record, written
// little-endian with microsecond timestamps, which every tool (tcpdump, Wireshark, scapy's
// rdpcap, PTF) reads.
#include <fmt/format.h>

#include <stdexcept>

#include "p4/test-vectors.h"

namespace hfsim {

namespace {

constexpr uint32_t kMagic = 0xA1B2C3D4;
constexpr uint32_t kMagicSwapped = 0xD4C3B2A1;
constexpr uint32_t kSnapLength = 65535;
constexpr uint32_t kLinkTypeEthernet = 1;
constexpr size_t kGlobalHeaderBytes = 24;
constexpr size_t kRecordHeaderBytes = 16;

void PutLe16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}
void PutLe32(std::vector<uint8_t>& out, uint32_t v) {
  PutLe16(out, v & 0xFFFF);
  PutLe16(out, v >> 16);
}

uint32_t Get32(const std::vector<uint8_t>& b, size_t at, bool big_endian) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t byte = b[at + (big_endian ? i : 3 - i)];
    v = (v << 8) | byte;
  }
  return v;
}

}  // namespace

std::vector<uint8_t> WritePcap(const std::vector<std::vector<uint8_t>>& frames) {
  std::vector<uint8_t> out;
  PutLe32(out, kMagic);
  PutLe16(out, 2);  // version 2.4
  PutLe16(out, 4);
  PutLe32(out, 0);  // this zone: UTC
  PutLe32(out, 0);  // timestamp accuracy
  PutLe32(out, kSnapLength);
  PutLe32(out, kLinkTypeEthernet);
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].size() > kSnapLength) {
      throw std::invalid_argument(fmt::format("frame {} has {} bytes, more than a pcap record "
                                              "holds here ({})",
                                              i, frames[i].size(), kSnapLength));
    }
    // Packet i at i microseconds: the order survives any tool that sorts by time.
    PutLe32(out, static_cast<uint32_t>(i / 1000000));
    PutLe32(out, static_cast<uint32_t>(i % 1000000));
    PutLe32(out, static_cast<uint32_t>(frames[i].size()));
    PutLe32(out, static_cast<uint32_t>(frames[i].size()));
    out.insert(out.end(), frames[i].begin(), frames[i].end());
  }
  return out;
}

std::vector<std::vector<uint8_t>> ReadPcap(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < kGlobalHeaderBytes) {
    throw std::runtime_error(fmt::format("pcap: {} bytes, shorter than the 24-byte global header",
                                         bytes.size()));
  }
  const uint32_t magic = Get32(bytes, 0, false);
  if (magic != kMagic && magic != kMagicSwapped) {
    throw std::runtime_error(fmt::format("pcap: magic {:#010x} is not a classic pcap file", magic));
  }
  const bool big_endian = magic == kMagicSwapped;
  const uint32_t snap_length = Get32(bytes, 16, big_endian);
  const uint32_t link_type = Get32(bytes, 20, big_endian);
  if (link_type != kLinkTypeEthernet) {
    throw std::runtime_error(fmt::format("pcap: link type {} is not Ethernet (1)", link_type));
  }
  std::vector<std::vector<uint8_t>> frames;
  size_t at = kGlobalHeaderBytes;
  while (at < bytes.size()) {
    if (bytes.size() - at < kRecordHeaderBytes) {
      throw std::runtime_error(fmt::format("pcap: record {} has a truncated header", frames.size()));
    }
    const uint32_t captured = Get32(bytes, at + 8, big_endian);
    if (captured > snap_length || captured > kSnapLength) {
      throw std::runtime_error(fmt::format("pcap: record {} claims {} bytes, more than the "
                                           "snapshot length {}",
                                           frames.size(), captured, snap_length));
    }
    at += kRecordHeaderBytes;
    if (bytes.size() - at < captured) {
      throw std::runtime_error(fmt::format("pcap: record {} is truncated", frames.size()));
    }
    frames.emplace_back(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                        bytes.begin() + static_cast<std::ptrdiff_t>(at + captured));
    at += captured;
  }
  return frames;
}

}  // namespace hfsim
