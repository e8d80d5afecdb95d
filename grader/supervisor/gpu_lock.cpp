#include "supervisor/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/stopwatch.hpp"

namespace course {

namespace {

int open_lock_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot open the GPU lock " + path + ": " + std::strerror(errno));
    return fd;
}

void lock_file(int fd, int operation, const std::string& path) {
    while (::flock(fd, operation) != 0) {
        if (errno == EINTR) continue;
        const int error = errno;
        ::close(fd);
        throw std::runtime_error("cannot lock " + path + ": " + std::strerror(error));
    }
}

}  // namespace

gpu_lock::hold& gpu_lock::hold::operator=(hold&& other) noexcept {
    if (this != &other) {
        release();
        fd_ = other.fd_;
        timers_fd_ = other.timers_fd_;
        other.fd_ = other.timers_fd_ = -1;
    }
    return *this;
}

void gpu_lock::hold::release() {
    // Closing a file releases its lock: the GPU first, then the timers' claim.
    if (fd_ >= 0) ::close(fd_);
    if (timers_fd_ >= 0) ::close(timers_fd_);
    fd_ = timers_fd_ = -1;
}

gpu_lock::hold::~hold() { release(); }

gpu_lock::hold gpu_lock::take(bool exclusive) const {
    if (path_.empty()) return hold();
    const stopwatch waiting;
    // PATH.timers: every timer holds it shared from the moment it asks until it is done, and a
    // correctness run passes it exclusive, so no correctness run starts while a timer waits
    // or times. Timers that arrive meanwhile queue behind the first one, and the GPU drains of
    // correctness runs once for all of them instead of once each.
    const std::string timers_path = path_ + ".timers";
    const int timers = open_lock_file(timers_path);
    lock_file(timers, exclusive ? LOCK_SH : LOCK_EX, timers_path);
    int fd = -1;
    try {
        fd = open_lock_file(path_);
        // A correctness run that passed the timers' file finds no timer holding the GPU: they
        // hold that file until they let the GPU go.
        lock_file(fd, exclusive ? LOCK_EX : LOCK_SH, path_);
    } catch (...) {
        ::close(timers);
        throw;
    }
    if (waited_ != nullptr) *waited_ += waiting.seconds();
    if (exclusive) return hold(fd, timers);
    ::close(timers);
    return hold(fd);
}
gpu_lock::hold gpu_lock::shared() const { return take(false); }
gpu_lock::hold gpu_lock::exclusive() const { return take(true); }

}  // namespace course
