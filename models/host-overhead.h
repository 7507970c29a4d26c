// Kept for old includes: the host cost per message is now part of the host-stack model
// (models/host-stack.h). HostOverhead{o} is HostStack with kind none and send_per_message_ns o.
#pragma once

#include "models/host-stack.h"

namespace hfsim {

using HostOverhead = HostStack;

}  // namespace hfsim
