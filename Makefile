# probex — build, test, bench.  Everything generated goes under $(BUILD).
#
#   make            build build/probex (runs scripts/deps.sh first if something is missing)
#   make test       all tests (unit, integration as root, API, browser)
#   make demo       build, trace a bundled workload, serve the viewer
#   make bench      overhead and viewer-latency table
#   make asan       unit tests under ASan/UBSan

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
LDFLAGS   += $(SAN) -L$(DUCKDB_DIR) -Wl,-rpath,'$$ORIGIN/deps/duckdb' \
	     -Wl,-rpath,$(abspath $(DUCKDB_DIR))
LDLIBS    += -lbpf -lelf -lz -lzstd -ldw -liberty -lmicrohttpd -lduckdb -lpthread -lm

# Sources are discovered, so a new file in a stage folder needs no Makefile edit.
SRCS      := $(sort $(filter-out src/bpf/%,$(wildcard src/*/*.c)))
# The subcommands (src/cli/main.c, cmd*.c) join the stages; everything else is the library
# that unit tests and fuzzers link.
MAIN_SRCS := src/cli/main.c $(wildcard src/cli/cmd*.c)
MAIN_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(MAIN_SRCS))
LIB_SRCS  := $(filter-out $(MAIN_SRCS),$(SRCS))
LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(BUILD)/obj/gen/web_assets.o
BPF_SRCS  := $(wildcard src/bpf/*.bpf.c)
SKELS     := $(patsubst src/bpf/%.bpf.c,$(BUILD)/gen/%.skel.h,$(BPF_SRCS))

DEPS_STAMP := $(DUCKDB_DIR)/libduckdb.so

# Keep generated BPF objects and skeletons: as intermediates they would be deleted and
# every object rebuilt on the next make.
.SECONDARY:

.PHONY: all deps fixtures test test-unit test-integration test-api test-e2e demo bench asan clean web
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
		-I$(BUILD)/gen -Isrc -c $< -o $@.tmp.o
	$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

$(BUILD)/gen/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: src/%.c $(SKELS) $(BUILD)/gen/syscall_names.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/probex: $(MAIN_OBJS) $(LIB_OBJS)
	$(CC) $^ $(LDFLAGS) $(LDLIBS) -o $@

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# Each stage may add its own rules (web build, test drivers, benchmarks) in mk/*.mk.
include $(sort $(wildcard mk/*.mk))

test: test-unit test-integration test-api test-e2e
	@echo "make test: all suites passed"

asan:
	$(MAKE) BUILD=build/asan OPT=-O1 SAN='-fsanitize=address,undefined -fno-sanitize-recover=all' test-unit

clean:
	rm -rf $(BUILD)/obj $(BUILD)/bpf $(BUILD)/gen $(BUILD)/probex $(BUILD)/tests build/asan
