#pragma once
// The sections the linker bounds for the emulator (every __shared__ array and __constant__
// variable, and the lab objects' other static data, which grader/rules/rules_object_flow.hpp
// moves there; lab_data.ld puts emu_static_data and emu_static on pages of their own, up to
// __emu_grid_data_end). Weak: a worker without any. Internal to the emulator.
extern "C" {
extern char __start_emu_shared[] __attribute__((weak));
extern char __stop_emu_shared[] __attribute__((weak));
extern char __start_emu_constant[] __attribute__((weak));
extern char __stop_emu_constant[] __attribute__((weak));
extern char __start_emu_static[] __attribute__((weak));
extern char __stop_emu_static[] __attribute__((weak));
extern char __start_emu_static_data[] __attribute__((weak));
extern char __stop_emu_static_data[] __attribute__((weak));
extern char __start_emu_local[] __attribute__((weak));
extern char __stop_emu_local[] __attribute__((weak));
extern char __start_emu_local_data[] __attribute__((weak));
extern char __stop_emu_local_data[] __attribute__((weak));
extern char __emu_grid_data_end[] __attribute__((weak));
}
