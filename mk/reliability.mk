# Reliability and security suite (issue 7): fuzzing, corrupt files, faults, load, security,
# ending with a summary of inputs tried, faults injected, survived and data lost.
#
#   make check-reliability            the CI-sized suite, part of `make test` (a few minutes;
#                                     parts needing root print SKIP otherwise)
#   make fuzz FUZZ_SECONDS=600        longer fuzzing (seconds in total, split between harnesses)
#   make load-full                    wrk at the issue's full size: 3 rounds x 30 s, 64 connections
#   make check-reliability REL_PARTS='corrupt security'   some parts only
#
# Fuzz harnesses (tests/fuzz/fuzz_*.c) are built by clang with libFuzzer, ASan and UBSan
# into $(FUZZ_BUILD) by a recursive make, like `make asan` does for the unit tests.
FUZZ_BUILD     ?= build/fuzz
FUZZ_CC        ?= clang
FUZZ_SAN       := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_HARNESSES := $(patsubst tests/fuzz/fuzz_%.c,%,$(filter-out tests/fuzz/fuzz_common.c,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_SECONDS   ?= 60
REL_DIR        ?= build/reliability

# Inside the recursive make: the library without the recorder (BPF, session, its options)
# and the HTTP daemon, plus the spool reader that `probex recover` uses.
FUZZ_LIB_OBJS = $(filter-out $(BUILD)/obj/record/% $(BUILD)/obj/cli/options.o $(BUILD)/obj/server/server.o \
		$(BUILD)/obj/server/assets.o $(BUILD)/obj/gen/web_assets.o,$(LIB_OBJS))

$(BUILD)/fuzzers/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.c tests/fuzz/fuzz_common.h $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/fuzz $< tests/fuzz/fuzz_common.c $(FUZZ_LIB_OBJS) $(LDFLAGS) \
		-fsanitize=fuzzer $(LDLIBS) -o $@

.PHONY: fuzz-build fuzz check-reliability
fuzz-build: | $(DEPS_STAMP)
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT=-O1 SAN='$(FUZZ_SAN)' \
		$(patsubst %,$(FUZZ_BUILD)/fuzzers/fuzz_%,$(FUZZ_HARNESSES))

fuzz: fuzz-build $(BUILD)/probex $(BUILD)/probex-test
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) REL_DIR=$(REL_DIR) PROBEX=$(abspath $(BUILD)/probex) \
		PROBEX_TEST=$(abspath $(BUILD)/probex-test) \
		BUILD=$(BUILD) tests/fuzz/run.sh $(FUZZ_HARNESSES)

# The viewer under ASan/UBSan for the load test: the whole binary, built like `make asan`.
ASAN_SERVER_BUILD ?= build/asan-server
ASAN_SERVER := $(ASAN_SERVER_BUILD)/probex

.PHONY: asan-server
asan-server: | $(DEPS_STAMP)
	$(MAKE) BUILD=$(ASAN_SERVER_BUILD) OPT=-O1 \
		SAN='-fsanitize=address,undefined -fno-sanitize-recover=all' $(ASAN_SERVER)

REL_ENV = PROBEX=$(abspath $(BUILD)/probex) PROBEX_TEST=$(abspath $(BUILD)/probex-test) \
	  BUILD=$(BUILD) REL_DIR=$(abspath $(REL_DIR)) \
	  FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) ASAN_PROBEX=$(abspath $(ASAN_SERVER))

.PHONY: load-full
check-reliability: $(BUILD)/probex $(BUILD)/probex-test fuzz-build asan-server
	@$(REL_ENV) tests/reliability/run.sh

load-full: $(BUILD)/probex asan-server
	@$(REL_ENV) LOAD_SECONDS=30 LOAD_ROUNDS=3 LOAD_CONNECTIONS=64 bash tests/reliability/load.sh

# CI runs `make test`: the suite is part of it (make merges the prerequisites).
test: check-reliability
