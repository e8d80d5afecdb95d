#pragma once
// The system calls left to the process that runs emulated kernels (executor.hpp): reading
// its requests and writing its replies on one socket, writing the kernels' printf output to
// stdout and stderr, memory for stacks and the heap (never executable), the watchdog's
// timer and signals to itself, and exiting. Any other call kills the process (SIGSYS).
#include <string>

namespace course {

// Installs the filter for good (with no new privileges). Empty when it is on, else why not
// (a kernel without seccomp, a processor the filter is not written for).
std::string filter_system_calls(int socket_fd);

}  // namespace course
