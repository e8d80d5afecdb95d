#include "supervisor/gpu_turn.hpp"

#include <stdexcept>

#include "core/protocol.hpp"

namespace course {

void gpu_turn::worker_starts() {
    release();
    if (error_) std::rethrow_exception(error_);
    answered_ = false;
    started_.restart();
}

std::string gpu_turn::answer(const nlohmann::json& event) {
    const bool ready = phase_ == phase::timing ? is_event<timing_ready_event>(event)
                                               : is_event<correctness_ready_event>(event);
    if (answered_ || !ready) return "";
    answered_ = true;
    seconds_to_ready_ += started_.seconds();
    try {
        release();
        held_ = phase_ == phase::timing ? lock_.exclusive() : lock_.shared();
        going_since_.restart();
        going_ = true;
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

void gpu_turn::blame_before_go(const std::string& what, const std::string& how) const {
    if (error_) std::rethrow_exception(error_);
    if (!answered_) throw std::runtime_error("the " + what + " worker " + how + " before it was ready to run a kernel");
}

void gpu_turn::release() {
    if (going_) seconds_held_ += going_since_.seconds();
    going_ = false;
    held_ = gpu_lock::hold();
}

}  // namespace course
