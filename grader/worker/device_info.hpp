#pragma once
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace course {

struct device_info {
    std::string name;
    int sms = 0;
    std::size_t l2_bytes = 0;
    std::string compute_capability;
    double peak_gbps = 0;  // 2 * memory clock * bus width / 8, from the device's attributes
    int runtime_version = 0;
    int driver_version = 0;
    bool emulated = false;
};

device_info query_device();
void to_json(nlohmann::json& j, const device_info& d);

}  // namespace course
