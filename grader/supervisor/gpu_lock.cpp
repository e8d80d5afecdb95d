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
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

gpu_lock::hold::~hold() {
    if (fd_ >= 0) ::close(fd_);  // closing the file releases its lock
}

gpu_lock::hold gpu_lock::take(bool exclusive) const {
    if (path_.empty()) return hold();
    const stopwatch waiting;
    // Through the turnstile first: a timer waiting for the GPU holds it, so newcomers queue
    // behind the timer instead of keeping the lock shared for ever.
    const std::string turnstile_path = path_ + ".turnstile";
    const int turnstile = open_lock_file(turnstile_path);
    lock_file(turnstile, LOCK_EX, turnstile_path);
    int fd = -1;
    try {
        fd = open_lock_file(path_);
        lock_file(fd, exclusive ? LOCK_EX : LOCK_SH, path_);
    } catch (...) {
        ::close(turnstile);
        throw;
    }
    ::close(turnstile);
    if (waited_ != nullptr) *waited_ += waiting.seconds();
    return hold(fd);
}

gpu_lock::hold gpu_lock::shared() const { return take(false); }
gpu_lock::hold gpu_lock::exclusive() const { return take(true); }

}  // namespace course
