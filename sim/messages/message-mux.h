// Two users of one transport: the collective executor and the graph driver's sends both put
// messages on the same fabric (so they queue behind each other on shared links), and each must
// hear only of its own. Channel c marks its message ids with bit 63 = c; users keep their ids
// below 2^63 (the executor's are a 32-bit slot and a generation that would need 2^31 reuses of
// one slot to reach it).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "sim/messages/event-clock.h"

namespace hfsim {

class MessageMux {
 public:
  explicit MessageMux(MessageTransport& wire) : m_channels{{*this, 0}, {*this, 1}} {
    wire.SetHandlers({[this](uint64_t id) { Route(id, false); },
                      [this](uint64_t id) { Route(id, true); }});
    m_wire = &wire;
  }
  MessageMux(const MessageMux&) = delete;
  MessageMux& operator=(const MessageMux&) = delete;

  MessageTransport& Channel(int channel) { return m_channels[channel]; }

 private:
  static constexpr uint64_t kMark = uint64_t{1} << 63;

  class Port final : public MessageTransport {
   public:
    Port(MessageMux& mux, uint64_t channel) : m_mux(mux), m_channel(channel) {}
    void SetHandlers(Handlers handlers) override { m_handlers = std::move(handlers); }
    void Send(const Message& message) override {
      if (message.id & kMark) throw std::invalid_argument("MessageMux: message id of 2^63 or more");
      Message marked = message;
      marked.id |= m_channel * kMark;
      m_mux.m_wire->Send(marked);
    }
    Handlers m_handlers;

   private:
    MessageMux& m_mux;
    uint64_t m_channel;
  };

  void Route(uint64_t id, bool acknowledged) {
    Port& port = m_channels[id >> 63];
    const uint64_t own = id & ~kMark;
    if (acknowledged) {
      if (port.m_handlers.acknowledged) port.m_handlers.acknowledged(own);
    } else if (port.m_handlers.delivered) {
      port.m_handlers.delivered(own);
    }
  }

  MessageTransport* m_wire = nullptr;
  Port m_channels[2];
};

}  // namespace hfsim
