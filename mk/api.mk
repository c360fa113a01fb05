# Viewer API tests: real `probex --view` processes on hand-built trace files (tests/api/).
API_SQLRUN := $(BUILD)/tests/api/sqlrun
API_TESTS  := $(sort $(wildcard tests/api/*.test.mjs))

$(API_SQLRUN): tests/api/sqlrun.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LDFLAGS) -lduckdb -o $@

test-api: $(BUILD)/probex $(API_SQLRUN)
	PROBEX=$(abspath $(BUILD)/probex) SQLRUN=$(abspath $(API_SQLRUN)) \
		node --test --test-concurrency=2 $(API_TESTS)

# The same tests against an ASan/UBSan build of probex (leaks fail a viewer's exit status).
.PHONY: test-api-asan
test-api-asan:
	$(MAKE) BUILD=build/asan OPT=-O1 SAN='-fsanitize=address,undefined -fno-sanitize-recover=all' \
		build/asan/probex build/asan/tests/api/sqlrun
	PROBEX=$(abspath build/asan/probex) SQLRUN=$(abspath build/asan/tests/api/sqlrun) \
		node --test --test-concurrency=2 $(API_TESTS)
