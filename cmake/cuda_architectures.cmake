# Runs before project(): whether this machine has a usable NVIDIA GPU, and the
# CMAKE_CUDA_ARCHITECTURES to build for, which must be chosen before CUDA is enabled.
#
# COURSE_GPU_VISIBLE: nvidia-smi -L lists a GPU. It decides the default of COURSE_GPU
# (CMakeLists.txt): the GPU graders are built by default only where they can run. It is
# checked once per build folder, like the default it decides (`make clean` checks again).
if(NOT DEFINED CACHE{COURSE_GPU_VISIBLE})
  set(_course_gpu_visible OFF)
  find_program(_course_nvidia_smi nvidia-smi)
  if(_course_nvidia_smi)
    execute_process(COMMAND ${_course_nvidia_smi} -L
                    RESULT_VARIABLE _course_smi_rc OUTPUT_VARIABLE _course_smi_out ERROR_QUIET)
    if(_course_smi_rc EQUAL 0 AND _course_smi_out MATCHES "GPU [0-9]+:")
      set(_course_gpu_visible ON)
    endif()
  endif()
  set(COURSE_GPU_VISIBLE ${_course_gpu_visible} CACHE INTERNAL "nvidia-smi -L lists a GPU")
endif()

# `native` builds exactly for the GPUs of this machine, but nvcc rejects it when no GPU
# is visible, so machines without one (CI, Gradescope, laptops) get an explicit list.
# Either way a user's -DCMAKE_CUDA_ARCHITECTURES=... or CUDAARCHS wins.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  if(COURSE_GPU_VISIBLE AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.24)
    set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures (a GPU is visible: native)")
  elseif(COURSE_GPU_VISIBLE)
    # CMake before 3.24 has no `native`: the visible GPUs' compute capabilities, asked directly.
    execute_process(COMMAND ${_course_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                    RESULT_VARIABLE _course_cap_rc OUTPUT_VARIABLE _course_caps ERROR_QUIET)
    string(REPLACE "." "" _course_caps "${_course_caps}")
    string(REGEX MATCHALL "[0-9]+" _course_caps "${_course_caps}")
    list(REMOVE_DUPLICATES _course_caps)
    if(NOT _course_cap_rc EQUAL 0 OR NOT _course_caps)
      set(_course_caps 80 86 90)
    endif()
    set(CMAKE_CUDA_ARCHITECTURES "${_course_caps}" CACHE STRING "CUDA architectures (the visible GPUs')")
  else()
    # 90 is the H200 the course's figures come from; 80 and 86 cover the A100 and
    # the RTX 30 series that many students own.
    set(CMAKE_CUDA_ARCHITECTURES "80;86;90" CACHE STRING "CUDA architectures (no GPU visible)")
  endif()
endif()
