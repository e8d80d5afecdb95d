# Thin targets over CMake; the build lives in $(BUILD).
#   make lab1                      build lab1's grader from labs/ (your code)
#   make lab1 LAB_SOURCE=solutions build it from the reference answers
#   make test                      build everything and run every test
#   make selfcheck                 every stub fails and every solution passes
#   make bench                     benchmark every reference on the GPU -> bench/results/<device>.json
#   make plots                     draw docs/images/*.png|svg from that JSON
#   make gradescope LAB=lab3       build/gradescope/lab3_autograder.zip for Gradescope
BUILD      ?= build
LAB_SOURCE ?= labs
JOBS       ?= $(shell nproc 2>/dev/null || echo 4)
CMAKE_ARGS ?=
LABS       := lab1 lab2 lab3 lab4 lab5

PYTHON     ?= python3
BENCH_JSON ?= $(firstword $(wildcard bench/results/*.json))

.PHONY: all configure test selfcheck bench plots gradescope clean $(LABS)

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	cmake -S . -B $(BUILD) -DLAB_SOURCE=$(LAB_SOURCE) $(CMAKE_ARGS)

$(LABS): configure
	cmake --build $(BUILD) -j $(JOBS) --target $@

test: all
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

selfcheck: all
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L selfcheck

bench: configure
	@cmake --build $(BUILD) -j $(JOBS) --target course_bench >/dev/null 2>&1 || \
	  { echo "make bench: the benchmarks need the CUDA Toolkit (nvcc), which this build does not have"; exit 2; }
	$(BUILD)/bin/course_bench --out-dir bench/results

plots:
	@[ -n "$(BENCH_JSON)" ] || { echo "make plots: no bench/results/*.json yet: run make bench on a GPU first"; exit 2; }
	$(PYTHON) scripts/plot_results.py $(BENCH_JSON) --out docs/images

gradescope:
	@[ -n "$(LAB)" ] || { echo "make gradescope: say which lab, e.g. make gradescope LAB=lab3"; exit 2; }
	$(PYTHON) scripts/make_gradescope.py $(LAB) $(if $(POLICY),--policy $(POLICY))

clean:
	rm -rf $(BUILD)
