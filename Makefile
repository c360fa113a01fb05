# probex — build, test, bench.  Everything generated goes under $(BUILD).
#
#   make            build build/probex (runs scripts/deps.sh first if something is missing)
#   make test       all tests (unit, integration and security as root, API, browser)
#   make demo       build, trace a bundled workload, serve the viewer
#   make bench      overhead and viewer-latency table
#   make asan       unit tests under ASan/UBSan
#   make install    binary, DuckDB library, man page, bash completion (PREFIX, DESTDIR)

BUILD     ?= build
DEPS_DIR  ?= build/deps
DUCKDB_DIR ?= $(DEPS_DIR)/duckdb
ARCH      := x86
CC        ?= gcc
CLANG     ?= clang
BPFTOOL   ?= bpftool
VERSION   := 0.2.0

SAN       ?=
OPT       ?= -O2
CFLAGS    ?= $(OPT) -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -fno-omit-frame-pointer \
	     -D_GNU_SOURCE -DPROBEX_VERSION='"$(VERSION)"' \
	     -Isrc -I$(BUILD)/gen -I$(DUCKDB_DIR) $(SAN)
# DuckDB next to the build (build/deps/duckdb) or, installed, in $(PREFIX)/lib/probex.
LDFLAGS   += $(SAN) -L$(DUCKDB_DIR) -Wl,-rpath,'$$ORIGIN/deps/duckdb' \
	     -Wl,-rpath,$(abspath $(DUCKDB_DIR)) -Wl,-rpath,'$$ORIGIN/../lib/probex'
# elfutils, the compressors it reads with, libedit and protobuf-c are linked in: mapping
# and relocating eleven shared objects at every start cost ~3 ms before the traced
# command could run.
STATIC_LIBS := -Wl,-Bstatic -ldw -lelf -lzstd -lz -llzma -lbz2 -ledit -ltinfo -lbsd -lmd \
	       -lprotobuf-c -Wl,-Bdynamic
LDLIBS    += -l:libbpf.a -Wl,--wrap=btf__load_vmlinux_btf $(STATIC_LIBS) -liberty -lmicrohttpd -lduckdb -lpthread -lm

# Sources are discovered, so a new file in a stage folder needs no Makefile edit.
SRCS      := $(sort $(filter-out src/bpf/%,$(wildcard src/*/*.c)))
# The subcommands (src/cli/main.c, cmd*.c) join the stages; everything else is the library
# that unit tests and fuzzers link.
MAIN_SRCS := src/cli/main.c $(wildcard src/cli/cmd*.c)
MAIN_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(MAIN_SRCS))
LIB_SRCS  := $(filter-out $(MAIN_SRCS),$(SRCS))
# Generated: the web UI bundle and the pprof encoder (protoc-c from src/export/profile.proto).
LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(BUILD)/obj/gen/web_assets.o \
	     $(BUILD)/obj/gen/profile.pb-c.o
BPF_SRCS  := $(wildcard src/bpf/*.bpf.c)
SKELS     := $(patsubst src/bpf/%.bpf.c,$(BUILD)/gen/%.skel.h,$(BPF_SRCS)) \
	     $(patsubst src/bpf/%.bpf.c,$(BUILD)/gen/%_light.lskel.h,$(BPF_SRCS))

DEPS_STAMP := $(DUCKDB_DIR)/libduckdb.so

# Keep generated BPF objects and skeletons: as intermediates they would be deleted and
# every object rebuilt on the next make.
.SECONDARY:

.PHONY: all deps fixtures test test-unit test-integration test-cli test-api test-e2e demo bench asan clean web
all: $(BUILD)/probex

$(DEPS_STAMP):
	./scripts/deps.sh

deps:
	./scripts/deps.sh

$(BUILD)/gen/vmlinux.h: | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

# The syscall name table, from the installed <asm/unistd_64.h> (no hand-kept list).
$(BUILD)/gen/syscall_names.h: scripts/gen-syscalls.sh
	@mkdir -p $(@D)
	scripts/gen-syscalls.sh $(CC) > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: src/bpf/%.bpf.c $(wildcard src/bpf/*.h) $(BUILD)/gen/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		-I$(BUILD)/gen -Isrc -idirafter /usr/include/$(shell $(CC) -print-multiarch) -c $< -o $@.tmp.o
	$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

$(BUILD)/gen/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

# The light skeleton of the same object (record/loader.h says why both).
$(BUILD)/gen/%_light.lskel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton -L $< name $*_light > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: src/%.c $(SKELS) $(BUILD)/gen/syscall_names.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# probex itself loads DuckDB and libmicrohttpd on their first call (scripts/gen-lazylib.sh):
# a recording uses neither, and loading them costs ~25 ms before the traced command starts.
# Test programs link them as usual.
# Resolved when the recipe runs: on a fresh machine the library arrives with deps.sh.
MHD_SO     = $$($(CC) -print-file-name=libmicrohttpd.so)
LAZY_OBJS := $(BUILD)/obj/gen/lazy_duckdb.o $(BUILD)/obj/gen/lazy_mhd.o
LAZY_LIBS := $(filter-out -lduckdb -lmicrohttpd,$(LDLIBS))

$(BUILD)/gen/lazy_duckdb.S: scripts/gen-lazylib.sh | $(DEPS_STAMP)
	@mkdir -p $(@D)
	scripts/gen-lazylib.sh duckdb duckdb_ $(DUCKDB_DIR)/libduckdb.so > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/lazy_mhd.S: scripts/gen-lazylib.sh | $(DEPS_STAMP)
	@mkdir -p $(@D)
	scripts/gen-lazylib.sh mhd MHD_ $(MHD_SO) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.S
	@mkdir -p $(@D)
	$(CC) -c $< -o $@

$(BUILD)/probex: $(MAIN_OBJS) $(LIB_OBJS) $(LAZY_OBJS)
	$(CC) $^ $(LDFLAGS) $(LAZY_LIBS) -o $@

# The test build: the same objects, but the test hooks (fault injection, PROBEX_TEST_*
# variables) in place of the shipped ones, which are all off.  Only tests run it.
TEST_HOOKS_OBJ := $(BUILD)/obj/tests/hooks/test_hooks.o
$(TEST_HOOKS_OBJ): tests/hooks/test_hooks.c src/common/test_hooks.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/probex-test: $(MAIN_OBJS) $(filter-out $(BUILD)/obj/common/test_hooks.o,$(LIB_OBJS)) $(TEST_HOOKS_OBJ)
	$(CC) $^ $(LDFLAGS) $(LDLIBS) -o $@

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# Each stage may add its own rules (web build, test drivers, benchmarks) in mk/*.mk.
include $(sort $(wildcard mk/*.mk))

# test-integration and test-security need root: as another user they fail, naming
# themselves, unless ALLOW_SKIP=1 (then they say SKIPPED, and the summary lists them).
test: test-unit test-integration test-security test-cli test-api test-e2e
	@if [ "$$(id -u)" -ne 0 ]; then \
		echo "make test: passed, but SKIPPED test-integration and test-security (they need root; ALLOW_SKIP=1)"; \
	else echo "make test: all suites passed"; fi

asan:
	$(MAKE) BUILD=build/asan OPT=-O1 SAN='-fsanitize=address,undefined -fno-sanitize-recover=all' test-unit

clean:
	rm -rf $(BUILD)/obj $(BUILD)/bpf $(BUILD)/gen $(BUILD)/probex $(BUILD)/probex-test $(BUILD)/tests build/asan
