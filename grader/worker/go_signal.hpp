#pragma once
#include <string>

namespace course {

// Blocks until the supervisor answers the worker's ready event with "go" on stdin (it
// takes the GPU first). Anything else (the grader could not take the GPU, or is gone)
// throws, so the worker ends before it runs a kernel. `what` names the waiting phase.
// Then stdin is /dev/null: nothing more comes on it, unless `more_follows` (a correctness
// run that times its parts next, whose timing waits for its own "go").
void wait_for_go(const std::string& what, bool more_follows = false);

}  // namespace course
