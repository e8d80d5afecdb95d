#pragma once
#include "core/protocol.hpp"

namespace course {

// The worker's side of the protocol with the supervisor: one JSON object per line on
// a file descriptor of its own (fd 3 when run by the supervisor), so that a student's
// printf on stdout can never be mistaken for a result.
class event_sink {
public:
    explicit event_sink(int fd) : fd_(fd) {}
    // One of the event types of core/protocol.hpp.
    template <typename E>
    void emit(const E& event) const {
        write_line(to_event(event));
    }


private:
    void write_line(const nlohmann::json& event) const;
    int fd_;
};

const event_sink& events();
void set_events_fd(int fd);

}  // namespace course
