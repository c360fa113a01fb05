# Viewer API tests: real `probex --view` processes on hand-built trace files (tests/api/).
API_SQLRUN := $(BUILD)/tests/api/sqlrun
API_TESTS  := $(sort $(wildcard tests/api/*.test.mjs))

$(API_SQLRUN): tests/api/sqlrun.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LDFLAGS) -lduckdb -o $@

test-api: $(BUILD)/probex $(BUILD)/probex-test $(BUILD)/fixtures/burst $(BUILD)/fixtures/fdworkers $(API_SQLRUN)
	PROBEX=$(abspath $(BUILD)/probex) SQLRUN=$(abspath $(API_SQLRUN)) \
		node --test --test-concurrency=2 $(API_TESTS)

# The same tests against an ASan/UBSan build of probex (leaks fail a viewer's exit status).
.PHONY: test-api-asan
test-api-asan:
	$(MAKE) BUILD=build/asan OPT=-O1 SAN='-fsanitize=address,undefined -fno-sanitize-recover=all' \
		build/asan/probex build/asan/probex-test build/asan/tests/api/sqlrun
	PROBEX=$(abspath build/asan/probex) SQLRUN=$(abspath build/asan/tests/api/sqlrun) \
		node --test --test-concurrency=2 $(API_TESTS)

# Cross-reader tests (tests/xread/): recorded, synthetic and hand-built edge-case traces read
# by DuckDB, arrow-rs (parquet-wasm) and polars (nodejs-polars) to identical values.  Part of
# test-api; `make test-xread` runs them alone.  The recording part needs root (else skipped).
XREAD_EDGE  := $(BUILD)/tests/xread/edge_trace
XREAD_STAMP := tests/xread/node_modules/.stamp

$(XREAD_EDGE): tests/xread/edge_trace.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS) -o $@

# npm packages (pinned in tests/xread/package.json) come through the project's deps script.
$(XREAD_STAMP): tests/xread/package.json | $(DEPS_STAMP)
	DEPS_DIR=$(DEPS_DIR) ./scripts/deps.sh

.PHONY: test-xread
test-xread: $(BUILD)/probex $(API_SQLRUN) $(XREAD_EDGE) $(XREAD_STAMP)
	PROBEX=$(abspath $(BUILD)/probex) SQLRUN=$(abspath $(API_SQLRUN)) \
		EDGE_TRACE=$(abspath $(XREAD_EDGE)) node --test tests/xread/*.test.mjs

test-api: test-xread
