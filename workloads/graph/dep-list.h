// The positions a graph node waits for: almost always one or two, kept inline in 16 bytes (a
// training graph's nodes are read in every pass of every evaluation, so their size is speed),
// with a heap array for the rare node that waits for more.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace hfsim {

class DepList {
 public:
  DepList() = default;
  DepList(std::initializer_list<uint32_t> values) { assign(values.begin(), values.end()); }
  DepList(const DepList& other) { assign(other.begin(), other.end()); }
  DepList(DepList&& other) noexcept { Steal(other); }
  DepList& operator=(const DepList& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  DepList& operator=(DepList&& other) noexcept {
    if (this != &other) {
      Release();
      Steal(other);
    }
    return *this;
  }
  ~DepList() { Release(); }

  uint32_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  const uint32_t* begin() const { return Data(); }
  const uint32_t* end() const { return Data() + m_size; }
  uint32_t operator[](uint32_t i) const { return Data()[i]; }
  bool operator==(const DepList& other) const {
    return m_size == other.m_size && std::equal(begin(), end(), other.begin());
  }

  void push_back(uint32_t value) {
    if (m_size == m_capacity) Grow(m_capacity * 2);
    MutableData()[m_size++] = value;
  }
  template <typename Iterator>
  void assign(Iterator first, Iterator last) {
    m_size = 0;
    for (; first != last; ++first) push_back(static_cast<uint32_t>(*first));
  }
  void clear() { m_size = 0; }

 private:
  static constexpr uint32_t kInline = 2;
  bool OnHeap() const { return m_capacity > kInline; }
  const uint32_t* Data() const { return OnHeap() ? m_heap : m_inline; }
  uint32_t* MutableData() { return OnHeap() ? m_heap : m_inline; }
  void Grow(uint32_t capacity) {
    uint32_t* grown = new uint32_t[capacity];
    std::memcpy(grown, Data(), sizeof(uint32_t) * m_size);
    Release();
    m_heap = grown;
    m_capacity = capacity;
  }
  void Release() {
    if (OnHeap()) delete[] m_heap;
    m_capacity = kInline;
  }
  void Steal(DepList& other) {
    m_size = other.m_size;
    m_capacity = other.m_capacity;
    if (other.OnHeap()) {
      m_heap = other.m_heap;
    } else {
      std::memcpy(m_inline, other.m_inline, sizeof(m_inline));
    }
    other.m_capacity = kInline;
    other.m_size = 0;
  }

  union {
    uint32_t m_inline[kInline] = {};
    uint32_t* m_heap;
  };
  uint32_t m_size = 0;
  uint32_t m_capacity = kInline;
};

}  // namespace hfsim
