# Viewer API tests: real `probex --view` processes on hand-built trace files (tests/api/).
API_SQLRUN := $(BUILD)/tests/api/sqlrun
API_TESTS  := $(sort $(wildcard tests/api/*.test.mjs))

$(API_SQLRUN): tests/api/sqlrun.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LDFLAGS) -lduckdb -o $@

test-api: $(BUILD)/probex $(API_SQLRUN)
	PROBEX=$(abspath $(BUILD)/probex) SQLRUN=$(abspath $(API_SQLRUN)) \
		node --test --test-concurrency=2 $(API_TESTS)
