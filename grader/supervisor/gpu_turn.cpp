#include "supervisor/gpu_turn.hpp"

#include "core/protocol.hpp"

namespace course {

void gpu_turn::worker_starts() {
    release();
    held_ = lock_.shared();
    answered_ = false;
}

std::string gpu_turn::answer(const nlohmann::json& event) {
    if (answered_ || !is_event<timing_ready_event>(event)) return "";
    answered_ = true;
    try {
        release();
        held_ = lock_.exclusive();
        alone_since_.restart();
        alone_ = true;
        return "go\n";
    } catch (...) {
        error_ = std::current_exception();
        return "stop\n";
    }
}

void gpu_turn::finish() {
    release();
    if (error_) std::rethrow_exception(error_);
}

void gpu_turn::release() {
    if (alone_) seconds_alone_ += alone_since_.seconds();
    alone_ = false;
    held_ = gpu_lock::hold();
}

}  // namespace course
