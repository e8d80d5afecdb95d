#pragma once
// CPU emulation of the CUDA subset the course uses. With COURSE_EMULATE defined, a lab's
// .cu file compiles unchanged as C++ (g++ or clang++) against this header.
//
// Semantics (docs/emulator.md has the details):
//  - every thread of a block is a fiber; each runs until it blocks at a barrier or a
//    warp operation, so no thread ever sees another's writes without synchronising, as
//    on Volta and later GPUs;
//  - each block has __shared__ memory to itself: blocks run one after another in a
//    process, and a large launch's over several processes (block_pool.hpp);
//  - a barrier some threads can never reach, a warp mask naming lanes that never
//    arrive, an out-of-bounds access of a device buffer and a kernel that runs too long
//    all stop the launch with an emu::kernel_error that names the kernel and the place.
// A lab object (compiled with the instrumentation, common/CMakeLists.txt) must not be
// fortified: glibc's checked memcpy and the like are expanded into moves that no callback
// sees, so kernel code could write anywhere unchecked.
#if defined(__SANITIZE_THREAD__) && defined(_FORTIFY_SOURCE) && _FORTIFY_SOURCE > 0
#error "emulated lab objects must be compiled with _FORTIFY_SOURCE off (common/CMakeLists.txt: COURSE_EMU_TRACE_FLAGS)"
#endif
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "emu/emu_runtime_api.hpp"
#include "emu/emu_types.hpp"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
// Static storage: one copy per process, reused by each block it runs in turn (blocks
// never run at the same time in one process). Its own section, so that the emulator knows what
// kernel code may access as shared memory (access_check.hpp) and what it may only read.
// Each array starts a 128-byte line, where a GPU's block finds its first one: its banks
// (the counters, the report's pictures of them) then do not depend on where the linker put
// it beside the other objects' arrays, which differ from one worker to the next.
#define __shared__ __attribute__((section("emu_shared"), aligned(128))) static
#define __constant__ __attribute__((section("emu_constant")))
// CUDA's alignment specifier, as its own headers define it for gcc.
#define __align__(n) __attribute__((aligned(n)))

inline constexpr int warpSize = 32;

namespace emu {

class kernel_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The watchdog stopped a kernel that ran too long: on a GPU it would have hung.
class kernel_timeout : public kernel_error {
public:
    using kernel_error::kernel_error;
};

enum class warp_op_kind : int { sync, shfl_idx, shfl_up, shfl_down, shfl_xor, ballot, any, all };
// __syncthreads and its variants that also combine a predicate over the block:
// __syncthreads_count, __syncthreads_and (all) and __syncthreads_or (any).
enum class barrier_kind : int { sync, count, all, any };

namespace detail {
// What kernel code reads of the running emulated thread; the scheduler owns the rest.
struct thread_ids {
    uint3 idx{};
    unsigned linear = 0;
};
extern thread_ids* g_current;
extern uint3 g_block_idx;
extern dim3 g_block_dim;
extern dim3 g_grid_dim;
inline const uint3& current_thread_idx() { return g_current->idx; }

std::uint64_t warp_op(warp_op_kind kind, unsigned mask, std::uint64_t value, int arg, int width, const char* file,
                      int line);
int block_barrier(barrier_kind kind, int predicate, const char* file, int line);
// An atomic of `size` bytes at `p` (trace_requests.cpp): nothing unless a launch is traced.
void trace_atomic(const volatile void* p, unsigned size);

template <typename T>
std::uint64_t to_bits(T v) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "shuffles move values of at most 8 bytes");
    std::uint64_t bits = 0;
    __builtin_memcpy(&bits, &v, sizeof(T));  // inline even where lab objects have -fno-builtin
    return bits;
}
template <typename T>
T from_bits(std::uint64_t bits) {
    T v;
    __builtin_memcpy(&v, &bits, sizeof(T));
    return v;
}

// Where the running thread entered kernel code (its stack pointer before the call): kernel
// code may not write the course's frames above it (access_check.hpp).
void set_stack_ceiling(std::uintptr_t sp);

// Calls the kernel with its own copy of the arguments. Not inlined, and saying that it
// clobbers the callee-saved registers: those its caller relies on are then restored from
// this frame, above the ceiling, never from one that kernel code can write.
template <typename Kernel, typename Tuple, std::size_t... I>
[[gnu::noinline]] void enter_kernel(Kernel kernel, Tuple& params, std::index_sequence<I...>) {
#if defined(__x86_64__)
    std::uintptr_t sp;
    asm volatile("mov %%rsp, %0" : "=r"(sp));
#else
    volatile char marker = 0;
    const auto sp = reinterpret_cast<std::uintptr_t>(&marker);
#endif
    set_stack_ceiling(sp);
    kernel(std::get<I>(params)...);
#if defined(__x86_64__)
    asm volatile("" ::: "rbx", "r12", "r13", "r14", "r15", "memory");
#endif
}

struct kernel_body {
    void* object;
    void (*call)(void*);
};
void run_grid(const char* name, dim3 grid, dim3 block, kernel_body body);
}  // namespace detail

// Names an allocation in out-of-bounds messages ("past the end of 'input'").
void label_allocation(void* ptr, const char* label);

// The entry points of barriers and warp operations are inlined into the calling kernel code
// whatever the optimisation level, so that the emulator's return address lies in the
// student's function (the call site a diagnosis names, through the grader's addr2line).
#define EMU_AT_CALLER __attribute__((always_inline)) inline

EMU_AT_CALLER void syncthreads_at(const char* file, int line) { detail::block_barrier(barrier_kind::sync, 0, file, line); }
EMU_AT_CALLER int syncthreads_count_at(const char* file, int line, int p) {
    return detail::block_barrier(barrier_kind::count, p != 0, file, line);
}
EMU_AT_CALLER int syncthreads_and_at(const char* file, int line, int p) {
    return detail::block_barrier(barrier_kind::all, p != 0, file, line);
}
EMU_AT_CALLER int syncthreads_or_at(const char* file, int line, int p) {
    return detail::block_barrier(barrier_kind::any, p != 0, file, line);
}

EMU_AT_CALLER void syncwarp_at(const char* file, int line, unsigned mask = 0xffffffffu) {
    detail::warp_op(warp_op_kind::sync, mask, 0, 0, 32, file, line);
}
template <typename T>
EMU_AT_CALLER T shfl_at(warp_op_kind kind, const char* file, int line, unsigned mask, T var, int arg, int width = 32) {
    return detail::from_bits<T>(detail::warp_op(kind, mask, detail::to_bits(var), arg, width, file, line));
}
EMU_AT_CALLER unsigned ballot_at(warp_op_kind kind, const char* file, int line, unsigned mask, int predicate) {
    return static_cast<unsigned>(detail::warp_op(kind, mask, predicate != 0, 0, 32, file, line));
}
unsigned activemask();

// Launches `kernel` on grid x block emulated threads and returns when every thread has
// finished. Each thread gets its own copy of the arguments, as on a GPU.
template <typename... Params, typename... Args>
void launch(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, Args&&... args) {
    const std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
    auto per_thread = [&] {
        auto own = params;
        detail::enter_kernel(kernel, own, std::index_sequence_for<Params...>{});
    };
    detail::run_grid(name, grid, block,
                     {&per_thread, [](void* f) { (*static_cast<decltype(per_thread)*>(f))(); }});
}

}  // namespace emu

#define threadIdx (::emu::detail::current_thread_idx())
#define blockIdx (static_cast<const uint3&>(::emu::detail::g_block_idx))
#define blockDim (static_cast<const dim3&>(::emu::detail::g_block_dim))
#define gridDim (static_cast<const dim3&>(::emu::detail::g_grid_dim))

#define __syncthreads() ::emu::syncthreads_at(__FILE__, __LINE__)
#define __syncthreads_count(p) ::emu::syncthreads_count_at(__FILE__, __LINE__, (p))
#define __syncthreads_and(p) ::emu::syncthreads_and_at(__FILE__, __LINE__, (p))
#define __syncthreads_or(p) ::emu::syncthreads_or_at(__FILE__, __LINE__, (p))
#define __syncwarp(...) ::emu::syncwarp_at(__FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_sync(...) ::emu::shfl_at(::emu::warp_op_kind::shfl_idx, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) ::emu::shfl_at(::emu::warp_op_kind::shfl_up, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(...) ::emu::shfl_at(::emu::warp_op_kind::shfl_down, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) ::emu::shfl_at(::emu::warp_op_kind::shfl_xor, __FILE__, __LINE__, __VA_ARGS__)
#define __ballot_sync(mask, p) ::emu::ballot_at(::emu::warp_op_kind::ballot, __FILE__, __LINE__, (mask), (p))
#define __any_sync(mask, p) static_cast<int>(::emu::ballot_at(::emu::warp_op_kind::any, __FILE__, __LINE__, (mask), (p)))
#define __all_sync(mask, p) static_cast<int>(::emu::ballot_at(::emu::warp_op_kind::all, __FILE__, __LINE__, (mask), (p)))
#define __activemask() ::emu::activemask()

// Memory fences order memory for other threads; the emulator runs one thread of a block at
// a time and never reorders, and its atomics are sequentially consistent across the
// processes of a block pool, so they have nothing to do.
inline void __threadfence() {}
inline void __threadfence_block() {}

// Cache-hinted loads and stores are plain accesses here.
template <typename T>
inline T __ldg(const T* p) { return *p; }
template <typename T>
inline T __ldcg(const T* p) { return *p; }
template <typename T>
inline T __ldcs(const T* p) { return *p; }
template <typename T>
inline void __stcg(T* p, T v) { *p = v; }
template <typename T>
inline void __stcs(T* p, T v) { *p = v; }

// Atomics: real ones, since the blocks of a large launch run in several processes at once
// (block_pool.hpp) and share device memory and __device__ variables. Each is a
// compare-and-swap loop on the value's bits, so that every type and operation is one
// read-modify-write. Their own accesses are not instrumented (lab objects are compiled with
// -fsanitize=thread, emu/trace.hpp): a traced launch hears of them from trace_atomic, since
// atomics never race with each other.
#define COURSE_EMU_ATOMIC inline __attribute__((no_sanitize("thread")))
namespace emu::detail {
template <std::size_t N> struct atomic_word;
template <> struct atomic_word<2> { using type = std::uint16_t; };
template <> struct atomic_word<4> { using type = std::uint32_t; };
template <> struct atomic_word<8> { using type = std::uint64_t; };
// Replaces *p with next(*p) atomically; returns the old value.
template <typename T, typename Next>
COURSE_EMU_ATOMIC T atomic_update(T* p, Next next) {
    ::emu::detail::trace_atomic(p, sizeof(T));
    using word = typename atomic_word<sizeof(T)>::type;
    word* w = reinterpret_cast<word*>(p);
    word seen = __atomic_load_n(w, __ATOMIC_RELAXED);
    for (;;) {
        T old;
        __builtin_memcpy(&old, &seen, sizeof(T));
        const T value = next(old);
        word want;
        __builtin_memcpy(&want, &value, sizeof(T));
        if (__atomic_compare_exchange_n(w, &seen, want, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return old;
    }
}
}  // namespace emu::detail
template <typename T>
COURSE_EMU_ATOMIC T atomicAdd(T* p, T v) { return ::emu::detail::atomic_update(p, [v](T old) { return old + v; }); }
template <typename T>
COURSE_EMU_ATOMIC T atomicSub(T* p, T v) { return ::emu::detail::atomic_update(p, [v](T old) { return old - v; }); }
template <typename T>
COURSE_EMU_ATOMIC T atomicExch(T* p, T v) { return ::emu::detail::atomic_update(p, [v](T) { return v; }); }
template <typename T>
COURSE_EMU_ATOMIC T atomicMin(T* p, T v) {
    return ::emu::detail::atomic_update(p, [v](T old) { return v < old ? v : old; });
}
template <typename T>
COURSE_EMU_ATOMIC T atomicMax(T* p, T v) {
    return ::emu::detail::atomic_update(p, [v](T old) { return v > old ? v : old; });
}
template <typename T>
COURSE_EMU_ATOMIC T atomicCAS(T* p, T compare, T v) {
    return ::emu::detail::atomic_update(p, [compare, v](T old) { return old == compare ? v : old; });
}
COURSE_EMU_ATOMIC unsigned atomicInc(unsigned* p, unsigned limit) {
    return ::emu::detail::atomic_update(p, [limit](unsigned old) { return old >= limit ? 0u : old + 1u; });
}
COURSE_EMU_ATOMIC unsigned atomicDec(unsigned* p, unsigned limit) {
    return ::emu::detail::atomic_update(
        p, [limit](unsigned old) { return (old == 0u || old > limit) ? limit : old - 1u; });
}
#undef COURSE_EMU_ATOMIC

// Device math that C++ lacks.
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
template <typename A, typename B>
inline constexpr std::common_type_t<A, B> min(A a, B b) { return b < a ? b : a; }
template <typename A, typename B>
inline constexpr std::common_type_t<A, B> max(A a, B b) { return a < b ? b : a; }
