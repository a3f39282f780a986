# tide: a linux-next style integration tool.  See README.md.
#
#   make            build build/tide
#   make run        install what is missing, build, integrate day 1 of the
#                   default kernel world and show the report
#   make check      install what is missing, build, run every test
#   make fuzz       build the libFuzzer targets (tests/fuzz/) and run each
#                   for FUZZ_SECONDS (default 600); FUZZ_TARGETS= picks some
#   make bench-merge, make bench-day, make bench-bisect   benchmarks against the reference tools
#   make bench-merge-real  a real repository's topic merges as one day (BENCH_REPO=PATH)
#   make bench-content-merge  content merges of real files against libgit2 and git
#   make bench-build  day 1's kernel cold, from a shared Redis cache, through distcc
#   make bench-checks the commit checks of a 400-tree day with 10,000 new commits

CC ?= gcc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 -Wvla
# src/ has one folder per layer or stage (docs/design.md, "Code layout");
# every folder is on the include path, so an #include names the header only.
SRC_DIRS = $(sort $(patsubst %/,%,$(dir $(wildcard src/*/*.[ch]))))
SRC_INC = $(SRC_DIRS:%=-I%)
BASE_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARNINGS) -MMD -MP $(SRC_INC) \
	$(shell pkg-config --cflags libgit2 jansson libcurl gmime-3.0 libcrypto zlib 2>/dev/null)
LIBS = $(shell pkg-config --libs libgit2 jansson libcurl gmime-3.0 libcrypto zlib 2>/dev/null || \
	echo -lgit2 -ljansson -lcurl -lgmime-3.0 -lgio-2.0 -lgobject-2.0 -lglib-2.0 -lcrypto -lz) -lpthread
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# Debian packages tide and its tests need (see deps).
DEB_PACKAGES = build-essential pkg-config libgit2-dev libjansson-dev \
	libcurl4-openssl-dev git python3 linux-source-6.1 qemu-system-x86 \
	ccache flex bison libelf-dev libssl-dev bc xz-utils perl kmod time \
	clang libclang-rt-14-dev libgmime-3.0-dev strace zlib1g-dev patch \
	man-db groff-base redis-server distcc python3-jsonschema python3-rfc3987 \
	chromium gcc-aarch64-linux-gnu gcc-arm-linux-gnueabi gcc-mips-linux-gnu \
	gcc-sh4-linux-gnu gcc-m68k-linux-gnu gcc-powerpc-linux-gnu sparse shfmt \
	qemu-system-arm zlib1g-dev:arm64

LIB_SRCS = $(sort $(wildcard src/*/*.c))
CMD_SRCS = $(sort $(wildcard cmd/*.c))
UNIT_SRCS = $(sort $(wildcard tests/unit/test_*.c))

# BUILD can be overridden so several checkouts/agents build side by side.
BUILD ?= build
B = $(BUILD)/release
A = $(BUILD)/asan
R = $(BUILD)/results
export TIDE_BIN = $(CURDIR)/$(A)/tide
export TIDE_RESULTS = $(CURDIR)/$(R)
export TIDE_MEASURE = $(CURDIR)/$(BUILD)/measurements
LIB_OBJS = $(LIB_SRCS:%.c=$(B)/%.o)
CMD_OBJS = $(CMD_SRCS:%.c=$(B)/%.o)
ALIB_OBJS = $(LIB_SRCS:%.c=$(A)/%.o)
ACMD_OBJS = $(CMD_SRCS:%.c=$(A)/%.o)
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(A)/tests/%)
.DEFAULT_GOAL := all
-include $(UNIT_BINS:=.d)
# (the rules of those .d files must not become the default goal)
.DEFAULT_GOAL := all

# libFuzzer targets (tests/fuzz/fuzz_<name>.c), built with clang into
# $(F); fuzz_fsck_name only once src/git/fsck.h exists.
FUZZ_CC = clang
# clang's -Wformat=2 also flags the va_list wrappers (buf_vprintf) gcc accepts.
FUZZ_CFLAGS = -O1 -g -Wno-format-nonliteral
FUZZ_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
F = $(BUILD)/fuzz
FUZZ_SRCS = $(filter-out $(if $(wildcard src/git/fsck.h),,tests/fuzz/fuzz_fsck_name.c), \
	$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS = $(FUZZ_SRCS:tests/fuzz/%.c=$(F)/%)
FLIB_OBJS = $(LIB_SRCS:%.c=$(F)/%.o)
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)

all: $(BUILD)/tide kernel-tests

# The guest side of `tide boot` (static, kernel-tests/init).
kernel-tests:
	$(MAKE) -C kernel-tests

$(BUILD)/tide: $(B)/tide
	cp $< $@

$(B)/tide: $(CMD_OBJS) $(B)/libtide.a
	$(CC) $(CFLAGS) -o $@ $(CMD_OBJS) $(B)/libtide.a $(LIBS)

$(B)/libtide.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

# Sanitizer build used by every test.
$(A)/tide: $(ACMD_OBJS) $(A)/libtide.a
	$(CC) $(SAN_FLAGS) -g -o $@ $(ACMD_OBJS) $(A)/libtide.a $(LIBS)

$(A)/libtide.a: $(ALIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(A)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -c -o $@ $<

$(A)/tests/%: tests/unit/%.c tests/unit/t.h tests/unit/t_files.h $(A)/libtide.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -o $@ $< $(A)/libtide.a $(LIBS)

asan: $(A)/tide $(UNIT_BINS)

$(F)/libtide.a: $(FLIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(F)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<

# The old binary goes first: a target that no longer compiles must not run.
$(F)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(F)/libtide.a
	@mkdir -p $(dir $@) && rm -f $@
	$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< \
		$(F)/libtide.a $(LIBS)

fuzz-build: $(FUZZ_BINS)

# Each target for FUZZ_SECONDS on a copy of its seed corpus.
fuzz: fuzz-build
	@mkdir -p $(R)
	tests/run-fuzz $(F) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The short run of make check: replay every corpus file, then 5 seconds each.
# A target that does not build is not built (-k builds the others), and
# tests/run-fuzz records it failed.
check-fuzz:
	@mkdir -p $(R)
	-$(MAKE) -k --no-print-directory fuzz-build
	tests/run-fuzz $(F) 5 $(FUZZ_TARGETS)

# Install the Debian packages that are missing (needs root the first time).
deps:
	@# zlib1g-dev:arm64 (kernel-tests/init.arm64) needs dpkg to know arm64.
	@if ! dpkg --print-foreign-architectures | grep -qx arm64; then \
		if [ "$$(id -u)" != 0 ]; then \
			echo "tide: dpkg lacks the arm64 architecture (run 'make deps' as root)" >&2; exit 1; \
		fi; \
		echo "adding the arm64 architecture to dpkg (for zlib1g-dev:arm64)"; \
		dpkg --add-architecture arm64 && apt-get update -q; \
	fi
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then \
			echo "tide: missing Debian packages: $$missing (run 'make deps' as root)" >&2; exit 1; \
		fi; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi
	@# distccd runs only the compilers linked in its masquerade directory.
	@if [ ! -e /usr/lib/distcc/gcc ] && command -v update-distcc-symlinks >/dev/null; then \
		if [ "$$(id -u)" != 0 ]; then \
			echo "tide: /usr/lib/distcc has no gcc (run 'make deps' as root)" >&2; exit 1; \
		fi; \
		update-distcc-symlinks; \
	fi

# The result files each part of make check must leave in $(R): a runner
# that does not build, dies or never runs leaves none, and tests/summarize
# counts each missing one as a failure, by name.
CMD_TESTS = $(sort $(wildcard tests/cmd/t*.sh))
KERNEL_TESTS = $(sort $(wildcard integration/tests/t*.sh))
EXPECT_UNIT = $(UNIT_SRCS:tests/unit/%.c=unit-%)
EXPECT_CMD = $(if $(T),,cmd-test-numbers) \
	$(foreach t,$(CMD_TESTS),$(if $(if $(T),$(findstring $(T),$(t)),all),cmd-$(basename $(notdir $(t)))))
EXPECT_FUZZ = $(FUZZ_TARGETS:%=fuzz-%)
EXPECT_KERNEL = $(KERNEL_TESTS:integration/tests/%.sh=kernel-%)
EXPECT_LAYERS = layers

# The list, one a line (tests/cmd/t0030-harness.sh checks it).
check-expected:
	@printf '%s\n' $(EXPECT_LAYERS) $(EXPECT_UNIT) $(EXPECT_CMD) $(EXPECT_FUZZ) $(EXPECT_KERNEL)

# Each part runs even when one before it failed; the summary decides.
check: deps
	$(MAKE) all asan
	@rm -rf $(R) && mkdir -p $(R)
	-tests/check-layers src $(R)/layers
	-tests/run-unit $(UNIT_BINS)
	-tests/run-cmd
	-$(MAKE) --no-print-directory check-fuzz
	-$(MAKE) --no-print-directory check-kernel
	@tests/summarize $(R) $(EXPECT_LAYERS) $(EXPECT_UNIT) $(EXPECT_CMD) $(EXPECT_FUZZ) $(EXPECT_KERNEL)

# No #include of src/ points up a layer or across stages (the table is in
# tests/check-layers; docs/design.md, "Code layout").
check-layers:
	@rm -rf $(R) && mkdir -p $(R)
	-tests/check-layers src $(R)/layers
	@tests/summarize $(R) $(EXPECT_LAYERS)

check-unit: asan
	@rm -rf $(R) && mkdir -p $(R)
	-tests/run-unit $(UNIT_BINS)
	@tests/summarize $(R) $(EXPECT_UNIT)

check-cmd: all asan
	@rm -rf $(R) && mkdir -p $(R)
	-tests/run-cmd $(T)
	@tests/summarize $(R) $(EXPECT_CMD)

# The kernel part: import mainline, check the series, integrate the days.
check-kernel: all asan
	@mkdir -p $(R)
	integration/check

# Also the plain-make builds and boots of days 1-3 and of each series (long).
check-kernel-full: all asan
	@mkdir -p $(R)
	TIDE_CHECK_FULL=1 integration/check

run: deps
	$(MAKE) all
	integration/run-default

bench-merge: all
	bench/bench-merge
	bench/bench-merge-deep

# A real repository's last topic merges as one day against git's loop
# (BENCH_REPO, default /work/data/git.git; BENCH_TOPICS, default 100).
bench-merge-real: all
	bench/bench-merge-real

bench-day: all
	bench/bench-day

bench-content-merge: all
	bench/bench-content-merge

bench-bisect: all
	bench/bench-bisect

bench-checks: all
	bench/bench-checks

bench-build: all
	bench/bench-build

clean:
	rm -rf $(BUILD)


.PHONY: kernel-tests
.PHONY: all asan deps check check-expected check-layers check-unit check-cmd check-kernel check-kernel-full run bench-merge bench-merge-real bench-day bench-bisect bench-build bench-content-merge bench-checks clean
.PHONY: fuzz fuzz-build check-fuzz

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(ALIB_OBJS:.o=.d) $(ACMD_OBJS:.o=.d)
-include $(FLIB_OBJS:.o=.d) $(FUZZ_BINS:=.d)
