# Thin targets over CMake; the build lives in $(BUILD).
#   make lab1                      build lab1's grader from labs/ (your code); with no GPU
#                                  to run them, the GPU graders are left out (CMAKE_ARGS=-DCOURSE_GPU=ON builds them)
#   make lab1 LAB_SOURCE=solutions build it from the reference answers
#   make test                      build everything and run every test (the GPU graders too
#                                  whenever nvcc is there, GPU or not: CI compiles them)
#   make selfcheck                 every stub fails and every solution passes
#   make bench                     benchmark every reference on the GPU -> bench/results/<device>.json
#   make emu-bench                 the CPU emulator's speed: two reductions, and each lab's emulated grade
#   make plots                     draw docs/images/*.png|svg from that JSON
#   make gradescope LAB=lab3       build/gradescope/lab3_autograder.zip for Gradescope
#   make release OUT=DIR           the student repository: no answers, references compiled
BUILD      ?= build
LAB_SOURCE ?= labs
JOBS       ?= $(shell nproc 2>/dev/null || echo 4)
CMAKE_ARGS ?=
PYTHON     ?= python3
# The course's Python packages (grader, scripts, bench) import from the repository root.
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))
# The labs of labs.json (one `make labN` target each).
LABS       := $(shell $(PYTHON) scripts/labs_manifest.py names)
BENCH_JSON ?= $(firstword $(wildcard bench/results/*.json))

# `make test`, `make selfcheck` and `make bench` compile the GPU graders whenever nvcc is
# found (on PATH or in /usr/local/cuda/bin), even where there is no GPU to run them, so a
# change that breaks only the GPU build fails CI; `make labN` and `make` build what this
# machine can run (CMakeLists.txt: COURSE_GPU, COURSE_GPU_WITH_NVCC). A -DCOURSE_GPU=... in
# CMAKE_ARGS decides for every target.
NVCC := $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
ifeq ($(findstring COURSE_GPU,$(CMAKE_ARGS)),)
  ALL_GPU_ARGS := -DCOURSE_GPU_WITH_NVCC=$(if $(NVCC),ON,OFF)
else
  ALL_GPU_ARGS := -DCOURSE_GPU_WITH_NVCC=OFF
endif
LAB_GPU_ARGS := -DCOURSE_GPU_WITH_NVCC=OFF

# Configures $(BUILD) with these arguments when it is not configured yet or was configured
# with other ones (switching between `make lab1` and `make test` reconfigures), and not
# otherwise: a configure costs seconds, and `cmake --build` reruns it by itself when a
# CMakeLists.txt changes. $(BUILD)/.make-configure-args holds the last arguments.
shell_quote = '$(subst ','\'',$(1))'
define configure_if_needed
	@args=$(call shell_quote,$(strip -DLAB_SOURCE=$(LAB_SOURCE) $(1) $(CMAKE_ARGS))); \
	if [ ! -f $(BUILD)/CMakeCache.txt ] || [ "$$(cat $(BUILD)/.make-configure-args 2>/dev/null)" != "$$args" ]; then \
	  echo "cmake -S . -B $(BUILD) $$args"; \
	  rm -f $(BUILD)/.make-configure-args; \
	  cmake -S . -B $(BUILD) -DLAB_SOURCE=$(LAB_SOURCE) $(1) $(CMAKE_ARGS) && \
	  printf '%s\n' "$$args" > $(BUILD)/.make-configure-args; \
	fi
endef

.PHONY: all configure test selfcheck bench emu-bench plots gradescope release clean $(LABS)

all:
	$(call configure_if_needed,$(LAB_GPU_ARGS))
	cmake --build $(BUILD) -j $(JOBS)

configure:
	rm -f $(BUILD)/.make-configure-args
	$(call configure_if_needed,$(LAB_GPU_ARGS))

$(LABS):
	$(call configure_if_needed,$(LAB_GPU_ARGS))
	cmake --build $(BUILD) -j $(JOBS) --target $@

test:
	$(call configure_if_needed,$(ALL_GPU_ARGS))
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

selfcheck:
	$(call configure_if_needed,$(ALL_GPU_ARGS))
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L selfcheck

bench:
	$(call configure_if_needed,$(ALL_GPU_ARGS))
	@cmake --build $(BUILD) -j $(JOBS) --target course_bench >/dev/null 2>&1 || \
	  { echo "make bench: the benchmarks need the CUDA Toolkit (nvcc), which this build does not have"; exit 2; }
	$(BUILD)/bin/course_bench --out-dir bench/results

emu-bench:
	$(call configure_if_needed,$(LAB_GPU_ARGS))
	cmake --build $(BUILD) -j $(JOBS) --target emu_speed
	cmake --build $(BUILD) -j $(JOBS)
	$(BUILD)/bin/emu_speed
	$(PYTHON) bench/emu/emu_grades.py --build-dir $(BUILD)

plots:
	@[ -n "$(BENCH_JSON)" ] || { echo "make plots: no bench/results/*.json yet: run make bench on a GPU first"; exit 2; }
	$(PYTHON) scripts/plot_results.py $(BENCH_JSON) --out docs/images

gradescope:
	@[ -n "$(LAB)" ] || { echo "make gradescope: say which lab, e.g. make gradescope LAB=lab3"; exit 2; }
	$(PYTHON) scripts/make_gradescope.py $(LAB) $(if $(POLICY),--policy $(POLICY))

release:
	@[ -n "$(OUT)" ] || { echo "make release: say where, e.g. make release OUT=../cuda-labs-student"; exit 2; }
	$(PYTHON) scripts/make_release.py $(OUT)

clean:
	rm -rf $(BUILD)
