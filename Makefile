# quiver's entry points. The README documents `make run` and `make test` as the two set-up
# commands; both install what they need first.
#
#   make run          install deps, build (Release), start build/quiver serve
#   make test         install deps, build, run the whole CTest suite, then again under
#                     ASan+UBSan, then the store and catalog tests under TSan, then the fuzz targets for a
#                     bounded time. Exit status is the truth.
#   make fuzz         build the libFuzzer targets (in the clang ASan+UBSan tree) and run each
#                     FUZZ_SECONDS
#   make build        Release build only (build/)
#   make format-check clang-format --dry-run over src/ tests/ bench/
#   make format       rewrite sources in place
#   make bench        run the benchmarks in bench/ and print their tables

SHELL := /bin/bash
JOBS ?= $(shell nproc)
CTEST_JOBS ?= 3
FUZZ_SECONDS ?= 60
CMAKE_COMMON := -G Ninja -DQUIVER_WERROR=ON
SOURCES = $(shell git ls-files '*.cc' '*.h' 2>/dev/null || find src tests bench -name '*.cc' -o -name '*.h')

.PHONY: deps build run test test-release test-asan test-tsan fuzz format format-check bench clean

deps:
	./scripts/install-deps.sh
	./scripts/install-interop.sh

build: deps
	cmake -S . -B build $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build -j $(JOBS)

run: build
	./build/quiver serve

test: deps test-release test-asan test-tsan fuzz
	@echo "make test: all suites passed (release, asan+ubsan, tsan store+catalog, fuzz)"

test-release: build
	cd build && ctest --output-on-failure -j $(CTEST_JOBS) --timeout 900

# The sanitizer trees build at -O1 -g1 (not Debug's -O0 -g): about half the compile time and
# faster tests, with assertions still on and line numbers in every report. Their tests run as
# QUIVER_TEST_SHARDS gtest shards per binary rather than one process per test case.
SANITIZE_FLAGS := -O1 -g1

# The ASan+UBSan tree is clang's, and one compile serves three checks: the sanitizer tests,
# the libFuzzer targets (fuzz/, which need clang; the libraries they drive are built with
# coverage for them) and the lock annotations (-Wthread-safety, clang only). A tree left by GCC is
# re-created.
ASAN_CONFIGURE = if [ -f build-asan/CMakeCache.txt ] && \
	    ! grep -q '^CMAKE_CXX_COMPILER:.*clang' build-asan/CMakeCache.txt; then \
	  rm -rf build-asan; fi; \
	CC=clang CXX=clang++ cmake -S . -B build-asan $(CMAKE_COMMON) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZE_FLAGS)" \
	  -DQUIVER_TEST_SHARDS=4 -DQUIVER_SANITIZE=address,undefined -DQUIVER_FUZZ=ON \
	  -DQUIVER_BUILD_BENCH=OFF -DQUIVER_UNITY=ON >/dev/null
FUZZERS := manifest_fuzzer deletion_fuzzer ipc_fuzzer lance_file_fuzzer expr_parser_fuzzer

test-asan: deps
	$(ASAN_CONFIGURE)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(CTEST_JOBS) --timeout 1800

# TSan builds and runs the binaries that exercise threads: common (the ThreadPool), store
# (contended writers), catalog (concurrent catalog and AccessControl) and, labelled "tsan", the
# Lance file reader's scans and the format property test (fields decode in parallel).
TSAN_TARGETS := common_test testing_test store_test catalog_test format_test format_property_test

test-tsan: deps
	cmake -S . -B build-tsan $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZE_FLAGS)" -DQUIVER_TEST_SHARDS=2 \
	  -DQUIVER_SANITIZE=thread -DQUIVER_ONLY_STORE=OFF -DQUIVER_ONLY_CATALOG=ON -DQUIVER_UNITY=ON >/dev/null
	cmake --build build-tsan -j $(JOBS) --target $(TSAN_TARGETS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -j $(CTEST_JOBS) --timeout 1800 -L "common|store|catalog|tsan"

fuzz: deps
	$(ASAN_CONFIGURE)
	cmake --build build-asan -j $(JOBS) --target $(FUZZERS)
	./scripts/run-fuzz.sh --pair build-asan/fuzz/manifest_fuzzer fuzz/corpus/manifest \
	  build-asan/fuzz/deletion_fuzzer fuzz/corpus/deletion $(FUZZ_SECONDS)
	./scripts/run-fuzz.sh --pair build-asan/fuzz/ipc_fuzzer fuzz/corpus/ipc \
	  build-asan/fuzz/lance_file_fuzzer fuzz/corpus/lance_file $(FUZZ_SECONDS)
	./scripts/run-fuzz.sh build-asan/fuzz/expr_parser_fuzzer fuzz/corpus/expr $$(( $(FUZZ_SECONDS) / 2 ))

format:
	clang-format -i $(SOURCES)

format-check: deps
	clang-format --dry-run --Werror $(SOURCES)

bench: build
	./scripts/install-interop.sh
	./bench/store/run.sh
	./bench/table/run.sh
	./bench/catalog/run.sh
	./bench/authz/run.sh
	./bench/format/run.sh
	./bench/query/run.sh

clean:
	rm -rf build build-asan build-tsan build-fuzz  # build-fuzz: the old separate fuzz tree
