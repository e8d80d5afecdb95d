#pragma once
#include <cstddef>
#include <string>

#include "core/protocol.hpp"  // device_info

namespace course {

device_info query_device();

}  // namespace course
