#!/usr/bin/env python3
"""Where the test Slurm cluster (slurm_cluster.py) finds Slurm and munge, and which GPUs
it hands out.

Installed packages (apt-get install slurm-wlm munge) are found on PATH and in /usr/sbin.
A machine without them, where nothing can be installed (the lent GPU machine), can use
Debian's packages unpacked into a folder named by COURSE_SLURM_ROOT:

    python3 -m grader.batch.tests.slurm_local unpack DEBS_FOLDER ROOT

runs `dpkg -x` on every .deb of DEBS_FOLDER into ROOT, links the daemons under their plain
names in ROOT/bin, and links into ROOT/missing-libs only the shared libraries that this machine
lacks (so that no job the cluster starts loads a second copy of a library it has). Slurm
starts slurmstepd by a path compiled into it, /usr/sbin/slurmstepd: unpack links it there
when nothing is, which needs root, as the cluster does.
"""
import glob
import os
import subprocess
import sys

ROOT_VARIABLE = "COURSE_SLURM_ROOT"
DAEMONS = ("slurmctld", "slurmd", "slurmstepd")  # Debian installs them as NAME-wlm
SLURM_LIBS = os.path.join("usr", "lib", "x86_64-linux-gnu", "slurm-wlm")
MISSING_LIBS = "missing-libs"  # not lib/: the packages unpack into ROOT/lib too
STEPD = "/usr/sbin/slurmstepd"


def root():
    """The unpacked packages' folder, or None for installed ones."""
    value = os.environ.get(ROOT_VARIABLE, "")
    return os.path.abspath(value) if value else None


def search_path():
    """PATH, the unpacked programs first, plus the sbin folders (the daemons live in
    /usr/sbin, often not on a user's PATH)."""
    parts = os.environ.get("PATH", os.defpath).split(os.pathsep)
    top = root()
    if top:
        parts = [os.path.join(top, d) for d in ("bin", "usr/bin", "usr/sbin")] + parts
    parts += [d for d in ("/usr/sbin", "/sbin") if d not in parts]
    return os.pathsep.join(parts)


def environment(env):
    """`env` with the unpacked libraries on LD_LIBRARY_PATH (unchanged for installed ones)."""
    top = root()
    if top:
        libs = [os.path.join(top, SLURM_LIBS), os.path.join(top, MISSING_LIBS)]
        if env.get("LD_LIBRARY_PATH"):
            libs.append(env["LD_LIBRARY_PATH"])
        env["LD_LIBRARY_PATH"] = os.pathsep.join(libs)
    return env


def conf_lines():
    """slurm.conf lines for where the plugins are."""
    top = root()
    return [f"PluginDir={os.path.join(top, SLURM_LIBS)}"] if top else []


def cgroup_conf_lines():
    """cgroup.conf's lines for the test cluster. slurmd 22.05 loads a cgroup plugin when it
    starts, whatever else it is told, and picks cgroup/v2 where a machine has only version 2
    cgroups; on the lent GPU machine (a container: cgroups v2 alone, no systemd) that plugin
    stopped slurmd with "cannot create cgroup context for cgroup/v2", with or without
    IgnoreSystemd. The test cluster's plugins (proctrack/linuxproc, task/affinity) use no
    cgroups, and cgroup/v1 only loads when nothing asks it for one: there, and on hybrid
    machines such as CI's (version 1 cgroups), slurmd then starts and runs GPU jobs. Not tried
    on a machine with systemd and version 2 cgroups."""
    return ["CgroupPlugin=cgroup/v1"]


def gpu_devices():
    """This machine's NVIDIA GPUs as device files (/dev/nvidia0, ...), in index order."""
    found = [p for p in glob.glob("/dev/nvidia[0-9]*") if p[len("/dev/nvidia"):].isdigit()]
    return sorted(found, key=lambda p: int(p[len("/dev/nvidia"):]))


def gres(host, devices):
    """(the node line's Gres= word, gres.conf's lines) handing out `devices` as gres/gpu:
    Slurm then gives each task that asks --gres=gpu:N its own and sets CUDA_VISIBLE_DEVICES."""
    if not devices:
        return "", []
    return f" Gres=gpu:{len(devices)}", [f"NodeName={host} Name=gpu File={d}" for d in devices]


def missing_libraries(files, search):
    """Sonames that `files` need and the loader cannot find with `search` on the path."""
    missing = set()
    env = dict(os.environ, LD_LIBRARY_PATH=search)
    for f in files:
        out = subprocess.run(["ldd", f], env=env, capture_output=True, text=True).stdout
        missing.update(line.split()[0] for line in out.splitlines() if "not found" in line)
    return missing


def unpack(debs, top):
    """See the module's text. Returns the sonames linked into ROOT/missing-libs."""
    packages = sorted(glob.glob(os.path.join(debs, "*.deb")))
    if not packages:
        raise SystemExit(f"slurm_local: no .deb files in {debs}")
    os.makedirs(top, exist_ok=True)
    for deb in packages:
        subprocess.run(["dpkg", "-x", deb, top], check=True)
    for d in ("bin", MISSING_LIBS):
        os.makedirs(os.path.join(top, d), exist_ok=True)
    for name in DAEMONS:
        link = os.path.join(top, "bin", name)
        if not os.path.lexists(link):
            os.symlink(os.path.join(top, "usr", "sbin", name + "-wlm"), link)
    stepd = os.path.join(top, "bin", "slurmstepd")
    if os.path.islink(STEPD) and not os.path.exists(STEPD):
        os.remove(STEPD)  # dangling: an earlier unpack's folder is gone (an installed one stays)
    if not os.path.lexists(STEPD):
        os.symlink(stepd, STEPD)
    programs = glob.glob(os.path.join(top, "usr", "sbin", "*")) + glob.glob(os.path.join(top, "usr", "bin", "*"))
    plugins = glob.glob(os.path.join(top, SLURM_LIBS, "*.so*"))
    wanted = missing_libraries(programs + plugins, os.path.join(top, SLURM_LIBS))
    linked = set()
    for soname in sorted(wanted):
        hits = glob.glob(os.path.join(top, "usr", "lib", "x86_64-linux-gnu", soname)) + \
            glob.glob(os.path.join(top, "lib", "x86_64-linux-gnu", soname))
        link = os.path.join(top, MISSING_LIBS, soname)
        if hits and not os.path.lexists(link):  # unpack may run again over the same folder
            os.symlink(hits[0], link)
            linked.add(soname)
    still = missing_libraries(programs + plugins, os.pathsep.join([os.path.join(top, SLURM_LIBS),
                                                                 os.path.join(top, MISSING_LIBS)]))
    if still:
        raise SystemExit("slurm_local: still missing after unpacking: " + ", ".join(sorted(still)))
    return linked


def main(argv):
    if len(argv) != 4 or argv[1] != "unpack":
        print("usage: slurm_local.py unpack DEBS_FOLDER ROOT", file=sys.stderr)
        return 2
    linked = unpack(argv[2], os.path.abspath(argv[3]))
    print("slurm_local: unpacked into", argv[3], "; libraries this machine lacked:", ", ".join(sorted(linked)) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
