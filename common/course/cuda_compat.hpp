#pragma once
// One include for "the CUDA runtime": the real one under nvcc, or the CPU emulation
// when COURSE_EMULATE is defined. Lab files include this (through their contract
// header) so that the same source builds on both backends without edits.
#if defined(COURSE_EMULATE)
#include "emu/cuda_emu.hpp"
#else
#include <cuda_runtime.h>
#endif
