#include "worker/sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <link.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace course {

namespace {

// The Landlock ABI, spelled out here: the GPU machines' linux-libc-dev (Debian 12) predates
// TCP rules, scopes and IOCTL_DEV. Values from the kernel's include/uapi/linux/landlock.h.
namespace ll {
struct ruleset_attr {
    std::uint64_t handled_access_fs;
    std::uint64_t handled_access_net;  // ABI 4
    std::uint64_t scoped;              // ABI 6
};
struct path_beneath_attr {
    std::uint64_t allowed_access;
    std::int32_t parent_fd;
} __attribute__((packed));

constexpr unsigned create_ruleset_version = 1u << 0;
constexpr int rule_path_beneath = 1;

constexpr std::uint64_t execute = 1ull << 0, write_file = 1ull << 1, read_file = 1ull << 2, read_dir = 1ull << 3,
                        make_sym = 1ull << 12, refer = 1ull << 13, truncate = 1ull << 14, ioctl_dev = 1ull << 15;
constexpr std::uint64_t abi1_all = (1ull << 13) - 1;  // execute ... make_sym
// Rights that make sense on a single file rather than a folder.
constexpr std::uint64_t file_rights = execute | write_file | read_file | truncate | ioctl_dev;
constexpr std::uint64_t net_bind_tcp = 1ull << 0, net_connect_tcp = 1ull << 1;
constexpr std::uint64_t scope_abstract_unix_socket = 1ull << 0, scope_signal = 1ull << 1;

#ifndef SYS_landlock_create_ruleset
constexpr long sys_create_ruleset = 444, sys_add_rule = 445, sys_restrict_self = 446;
#else
constexpr long sys_create_ruleset = SYS_landlock_create_ruleset, sys_add_rule = SYS_landlock_add_rule,
               sys_restrict_self = SYS_landlock_restrict_self;
#endif

long create_ruleset(const ruleset_attr* attr, std::size_t size, unsigned flags) {
    return syscall(sys_create_ruleset, attr, size, flags);
}
long add_rule(int ruleset, int type, const void* attr) { return syscall(sys_add_rule, ruleset, type, attr, 0u); }
long restrict_self(int ruleset) { return syscall(sys_restrict_self, ruleset, 0u); }
}  // namespace ll

// Every file right this ABI knows: handling a right is what makes Landlock deny it.
std::uint64_t fs_rights(int abi) {
    std::uint64_t r = ll::abi1_all;
    if (abi >= 2) r |= ll::refer;
    if (abi >= 3) r |= ll::truncate;
    if (abi >= 5) r |= ll::ioctl_dev;
    return r;
}

struct fd_closer {
    int fd;
    ~fd_closer() {
        if (fd >= 0) close(fd);
    }
};

// Allows `access` beneath `path` (or on it, for a file). A path that does not exist here
// (no /lib64, no CUDA) is skipped: it cannot be opened later either.
void allow(int ruleset, const std::string& path, std::uint64_t access, std::string& problems) {
    const fd_closer f{open(path.c_str(), O_PATH | O_CLOEXEC)};
    if (f.fd < 0) return;
    struct stat st{};
    if (fstat(f.fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= ll::file_rights;
    const ll::path_beneath_attr attr{access, f.fd};
    if (ll::add_rule(ruleset, ll::rule_path_beneath, &attr) != 0)
        problems += " cannot allow " + path + " (" + std::strerror(errno) + ");";
}

// Where the CUDA driver and runtime were loaded from: they load more of their own
// libraries later (the PTX JIT compiler, for one), wherever the driver is installed.
int add_driver_folder(dl_phdr_info* info, std::size_t, void* out) {
    const std::string name = info->dlpi_name ? info->dlpi_name : "";
    const auto slash = name.rfind('/');
    if (slash == std::string::npos || slash == 0) return 0;
    const std::string base = name.substr(slash + 1);
    if (base.rfind("libcuda", 0) == 0 || base.rfind("libnvidia", 0) == 0)
        static_cast<std::vector<std::string>*>(out)->push_back(name.substr(0, slash));
    return 0;
}

std::vector<std::string> read_only_folders(sandbox_mode mode) {
    // System folders: libraries, configuration, /proc and /sys (the driver and Google
    // Benchmark read both), /dev (the GPU's nodes), /run (a containerised driver).
    std::vector<std::string> out = {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc",
                                    "/opt", "/proc", "/sys",  "/dev",   "/run"};
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v != nullptr && v[0] == '/') out.push_back(v);
    dl_iterate_phdr(add_driver_folder, &out);
    if (mode == sandbox_mode::relaxed) {
        // The tools inject libraries named by these variables and load more from their
        // install folder: allow the library's folder and two levels up, never a top folder.
        for (const char* var : {"CUDA_INJECTION64_PATH", "LD_PRELOAD"}) {
            const char* v = std::getenv(var);
            std::string list = v != nullptr ? v : "";
            std::replace(list.begin(), list.end(), ' ', ':');
            for (std::size_t start = 0; start <= list.size();) {
                const std::size_t end = std::min(list.find(':', start), list.size());
                std::string dir = list.substr(start, end - start);
                start = end + 1;
                for (int up = 0; up < 3 && dir.find('/', 1) != std::string::npos; ++up) {
                    dir = dir.substr(0, dir.rfind('/'));
                    if (std::count(dir.begin(), dir.end(), '/') >= 2) out.push_back(dir);
                }
            }
        }
    }
    return out;
}

// The GPU's device nodes, opened read-write (and with ioctls) by the driver: /dev/nvidia0,
// nvidiactl, nvidia-uvm, nvidia-caps/ ... plus the harmless character devices. Not all of
// /dev: /dev/shm and /dev/mqueue there hold other processes' shared memory.
std::vector<std::string> device_nodes() {
    std::vector<std::string> out = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
    if (DIR* d = opendir("/dev")) {
        while (const dirent* e = readdir(d))
            if (std::strncmp(e->d_name, "nvidia", 6) == 0) out.push_back(std::string("/dev/") + e->d_name);
        closedir(d);
    }
    return out;
}

// The system folder that holds the worker's own executable (a course installed under
// /opt, say), or "": that course tree, solutions included, would stay readable.
std::string folder_holding_worker(const std::vector<std::string>& folders) {
    char exe[4096], dir[4096];
    if (realpath("/proc/self/exe", exe) == nullptr) return "";
    for (const auto& f : folders) {
        if (realpath(f.c_str(), dir) == nullptr) continue;
        const std::string d = dir;
        if (d != "/" && std::string(exe).rfind(d + "/", 0) == 0) return f;
    }
    return "";
}

int highest_open_fd() {
    int highest = 2;
    if (DIR* d = opendir("/proc/self/fd")) {
        while (const dirent* e = readdir(d)) highest = std::max(highest, std::atoi(e->d_name));
        closedir(d);
    }
    return highest;
}

// Returns the limit now in force, or "" when it could not be set.
std::string set_limit(int resource, rlim_t value) {
    rlimit current{};
    if (getrlimit(resource, &current) != 0) return "";
    // Only ever lower a limit; lower the hard one too, so the worker cannot raise it again.
    rlim_t v = value;
    if (current.rlim_cur != RLIM_INFINITY) v = std::min(v, current.rlim_cur);
    if (current.rlim_max != RLIM_INFINITY) v = std::min(v, current.rlim_max);
    const rlimit next{v, v};
    if (setrlimit(resource, &next) != 0) return "";
    if (resource == RLIMIT_NOFILE || v == 0) return std::to_string(v);
    return std::to_string(v >> 20) + " MiB";
}

// Returns what was limited, for the report.
std::string apply_limits(const sandbox_options& opt) {
    constexpr rlim_t mib = 1u << 20;
    // The driver opens a few more files after its start (the JIT compiler, profiler
    // pipes); 128 spare descriptors is far beyond that, and far below a fork bomb of files.
    const rlim_t files = static_cast<rlim_t>(highest_open_fd()) + 1 + 128;
    std::string done;
    const auto note = [&](const char* what, const std::string& value) {
        if (!value.empty()) done += std::string(" ") + what + " " + value + ";";
    };
    note("core", set_limit(RLIMIT_CORE, 0));
    note("file size", set_limit(RLIMIT_FSIZE, 64 * mib));
    note("open files", set_limit(RLIMIT_NOFILE, files));
    // The emulator's buffers, guard pages and fiber stacks are small mappings (the
    // MAP_NORESERVE ones count here too): every lab's emulated grading runs within 256 MiB,
    // so 4 GiB leaves an instructor's larger sizes ample room.
    if (opt.limit_address_space) note("address space", set_limit(RLIMIT_AS, 4096 * mib));
    // No RLIMIT_NPROC: it counts every process and thread of the user, across all the
    // workers a batch runs side by side, not this worker's.
    return done;
}

std::string unavailable_reason(int err) {
    switch (err) {
    case ENOSYS: return "the kernel has no Landlock";
    case EOPNOTSUPP: return "Landlock is disabled on this machine (boot option lsm=)";
    case EPERM: return "Landlock is blocked here (a seccomp or container policy)";
    default: return std::string("Landlock failed: ") + std::strerror(err);
    }
}

}  // namespace

sandbox_options sandbox_options_from_env(sandbox_mode flag, bool emulated) {
    sandbox_options o;
    o.mode = flag;
    if (flag == sandbox_mode::off) o.off_reason = "--sandbox=off";
    if (const char* v = std::getenv("COURSE_SANDBOX"); v != nullptr && std::string(v) == "off") {
        o.mode = sandbox_mode::off;
        o.off_reason = "COURSE_SANDBOX=off";
    }
    if (const char* v = std::getenv("COURSE_WORKER_SCRATCH"); v != nullptr && v[0] == '/') o.scratch = v;
    o.limit_address_space = emulated;
    return o;
}

int landlock_abi() {
    const long abi = ll::create_ruleset(nullptr, 0, ll::create_ruleset_version);
    return abi > 0 ? static_cast<int>(abi) : -errno;
}

sandbox_report apply_sandbox(const sandbox_options& opt) {
    sandbox_report r;
    r.mode = opt.mode;
    if (opt.mode == sandbox_mode::off) {
        r.detail = opt.off_reason.empty() ? "switched off" : "switched off by " + opt.off_reason;
        return r;
    }
    // A tool's injected code shares temporary files with the tool: leave its TMPDIR alone.
    if (!opt.scratch.empty() && opt.mode == sandbox_mode::strict) setenv("TMPDIR", opt.scratch.c_str(), 1);
    const std::string limits = apply_limits(opt);
    r.detail = "limits:" + limits;

    // No setuid program can give the worker more rights; Landlock needs this too, unless root.
    const bool no_new_privs = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
    if (!no_new_privs) r.detail += std::string(" no_new_privs failed: ") + std::strerror(errno) + ";";
    const int abi = landlock_abi();
    if (abi <= 0) {
        r.status = "unavailable";
        r.detail = unavailable_reason(-abi) + "; " + r.detail;
        return r;
    }
    const bool strict = opt.mode == sandbox_mode::strict;
    const std::uint64_t all = fs_rights(abi);
    ll::ruleset_attr attr{all, 0, 0};
    // In relaxed mode the network stays open: ncu talks to its injected code over TCP.
    if (abi >= 4 && strict) attr.handled_access_net = ll::net_bind_tcp | ll::net_connect_tcp;
    if (abi >= 6 && strict) attr.scoped = ll::scope_abstract_unix_socket | ll::scope_signal;
    const fd_closer ruleset{static_cast<int>(ll::create_ruleset(&attr, sizeof attr, 0))};
    if (ruleset.fd < 0) {
        r.status = "unavailable";
        r.detail = unavailable_reason(errno) + "; " + r.detail;
        return r;
    }
    std::string problems;
    const std::uint64_t read_exec = ll::read_file | ll::read_dir | ll::execute;
    const std::vector<std::string> folders = read_only_folders(opt.mode);
    for (const auto& dir : folders) allow(ruleset.fd, dir, read_exec, problems);
    const std::uint64_t device_rw = ll::read_file | ll::write_file | ll::read_dir | ll::truncate | ll::ioctl_dev;
    for (const auto& node : device_nodes()) allow(ruleset.fd, node, device_rw & all, problems);
    // Everything in the scratch folder but symlinks: the supervisor deletes that folder
    // afterwards, and a symlink swapped in during the deletion could point it elsewhere.
    if (!opt.scratch.empty()) allow(ruleset.fd, opt.scratch, all & ~ll::make_sym, problems);
    if (!strict) {
        for (const char* dir : {"/tmp", "/dev/shm", "/var/tmp"}) allow(ruleset.fd, dir, all, problems);
        // The tools read the worker's own file for its symbols; its contents are in the
        // worker's memory anyway. Its folder, the build folder, stays closed.
        char exe[4096];
        if (realpath("/proc/self/exe", exe) != nullptr) allow(ruleset.fd, exe, ll::read_file, problems);
    }

    if (ll::restrict_self(ruleset.fd) != 0) {
        r.status = "unavailable";
        r.detail = unavailable_reason(errno) + "; " + r.detail;
        return r;
    }
    r.status = "on";
    r.landlock_abi = abi;
    r.files = true;
    r.network = attr.handled_access_net != 0;
    r.scoped = attr.scoped != 0;
    r.exposed_folder = folder_holding_worker(folders);
    r.detail += " writable: " + (opt.scratch.empty() ? std::string("no scratch folder") : opt.scratch) +
                (strict ? "" : ", /tmp, /dev/shm, /var/tmp") + problems;
    return r;
}

std::string sandbox_note(const sandbox_report& r) {
    if (r.status == "off") return "Sandbox: off (" + r.detail + "); student code ran unrestricted.";
    if (r.status != "on") return "Sandbox: unavailable (" + r.detail.substr(0, r.detail.find(';')) +
                                 "); grading went on without it.";
    std::string what = r.network ? "files and TCP restricted" : "files restricted";
    if (r.mode == sandbox_mode::relaxed) what += ", relaxed for a profiling tool";
    if (r.mode == sandbox_mode::strict && !r.network) what += "; this kernel cannot restrict TCP";
    if (!r.exposed_folder.empty()) what += "; but the course lies beneath " + r.exposed_folder + ", which stays readable";
    return "Sandbox: Landlock ABI " + std::to_string(r.landlock_abi) + " (" + what + ").";
}

sandbox_event sandbox_event_of(const sandbox_report& r) {
    sandbox_event event = r;
    event.note = sandbox_note(r);
    return event;
}

}  // namespace course
