#pragma once
#include <string>

#include "core/result.hpp"
#include "supervisor/session.hpp"

namespace course {

// <worker_dir>/<lab>_worker_<backend>.
std::string worker_path(const grade_options& opt, const char* backend);
bool executable(const std::string& path);

// Picks the backend (the GPU worker when it can run, else the CPU emulator), learns the
// lab's parts from the worker, and names the graded file in `r`. Returns "" or an
// infrastructure error.
std::string choose_worker(session& s, lab_result& r);

// `grader --describe-lab LAB WORKER OUT`: what WORKER, a template worker of the class (its
// student is the course's stub), tells of the lab: its backend, device, parts and sandbox,
// written to OUT for every grade of a batch to read (--described OUT) rather than each
// starting its own worker, and on a GPU making a CUDA context, only to ask. The parts are
// the lab's, not a submission's: the course's code lists them. Returns the bytes written;
// throws with the reason.
std::string write_lab_description(const std::string& lab, const std::string& worker, const std::string& out);

// Names the graded file in the result: its path, the hash of its bytes, and a note when
// it is not the student's own labs/ file or is newer than the worker that grades it.
void describe_source(const grade_options& opt, const std::string& file, const std::string& worker, lab_result& r);

}  // namespace course
