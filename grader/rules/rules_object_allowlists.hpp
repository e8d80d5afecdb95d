#pragma once
// What a lab file's object may call and define besides its own namespace: nvcc's and g++'s
// own code, header libraries and the emulator. Internal to grader_core; the object check
// (rules_object.cpp) is their only user.
#include <set>
#include <string>

#include "rules/rules_object.hpp"

namespace course::rules::detail {

// nvcc's registration and launch code: the fat binary, the kernels, __device__,
// __constant__ and __managed__ variables, the launch of a kernel through its host stub,
// the guards of its static locals, exception tables, and atexit for the unregistration.
// `exit`: nvcc compiles every __device__ function for the host as a stub that calls it.
const std::set<std::string>& gpu_calls();
// The emulator's memory-tracing callbacks (common/emu/tsan_entry.cpp) that the
// instrumentation of an emulated lab object calls.
const std::set<std::string>& tsan_calls();

// What the emulator's header (common/emu/cuda_emu.hpp) lets kernel code reach, the C
// library's memory and math functions, printf for a kernel's own debugging output, and
// what g++ emits for guards, exceptions, stack protection and assert.
bool emu_call_allowed(const std::string& mangled);

// libstdc++'s <iostream> gives every translation unit that includes it a static
// std::ios_base::Init object (GCC 12), whatever header pulled it in (CUB does).
const std::set<std::string>& iostream_init_calls();

// NVTX's loader (CUB includes NVTX): inline functions that find an injection library.
// These calls are allowed only in code of NVTX's own functions (their .text.nvtx* sections).
const std::set<std::string>& nvtx_loader_calls();

// nm's letters for weak definitions, and for undefined (called or referenced) symbols.
bool weak_type(char t);
bool undefined_type(char t);

// Scopes whose template instantiations and inline variables a header library puts in the
// student's object as weak symbols.
bool weak_scope_allowed(backend b, const std::string& scope, const std::string& global_name);

// nvcc's host stub of a kernel: _Z<len>__device_stub__ZN<len><namespace>...
bool is_kernel_stub(const std::string& name, const std::string& ns);

}  // namespace course::rules::detail
