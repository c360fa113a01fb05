# Browser tests: Debian's chromium driven by playwright-core (web/node_modules) against a real
# `probex --view` on a small deterministic synthetic trace.  Screenshots: build/e2e-artifacts/.
#   make test-e2e      the UI suite (about a minute)
#   make e2e-big       zoom redraw time on a 10M-event trace (minutes; opt-in)
CHROMIUM        ?= /usr/bin/chromium
E2E_DIR         := $(BUILD)/e2e
E2E_FIXTURE     := $(E2E_DIR)/fixture.parquet
E2E_BIG         := $(E2E_DIR)/big-10M.parquet
E2E_ARTIFACTS   ?= build/e2e-artifacts
E2E_ENV          = PROBEX=$(BUILD)/probex PROBEX_CHROMIUM=$(CHROMIUM) E2E_ARTIFACTS=$(E2E_ARTIFACTS)

.PHONY: e2e-check-browser e2e-big

e2e-check-browser:
	@if [ ! -x "$(CHROMIUM)" ]; then \
		echo "test-e2e: cannot run the browser tests: $(CHROMIUM) is missing." >&2; \
		echo "test-e2e: install it with ./scripts/deps.sh (Debian package 'chromium'), or set CHROMIUM=/path/to/chromium." >&2; \
		exit 1; \
	fi

$(E2E_FIXTURE): $(BUILD)/probex
	@mkdir -p $(@D)
	$(BUILD)/probex synth -o $@.tmp.parquet --events 40000 --seed 7 && mv $@.tmp.parquet $@

# Order-only: relinking probex does not regenerate the 10M-event trace (minutes).
$(E2E_BIG): | $(BUILD)/probex
	@mkdir -p $(@D)
	$(BUILD)/probex synth -o $@.tmp.parquet --events 10000000 --seed 11 && mv $@.tmp.parquet $@

# wallclock.test.mjs and procview.test.mjs record tests/fixtures/waitchain.c and threeworkers.c
# themselves (as root; skipped otherwise).
test-e2e: $(BUILD)/probex $(BUILD)/probex-test $(BUILD)/fixtures/burst $(BUILD)/fixtures/waitchain $(BUILD)/fixtures/compare_modes $(BUILD)/fixtures/threeworkers $(WEB_STAMP) e2e-check-browser $(E2E_FIXTURE)
	@mkdir -p $(E2E_ARTIFACTS)
	$(E2E_ENV) FIXTURES=$(BUILD)/fixtures E2E_FIXTURE=$(E2E_FIXTURE) RELAY=$(BUILD)/fixtures/waitchain THREEWORKERS=$(BUILD)/fixtures/threeworkers node --test --test-concurrency=1 tests/e2e/viewer.test.mjs tests/e2e/interactions.test.mjs tests/e2e/syscalls.test.mjs tests/e2e/exact.test.mjs tests/e2e/wallclock.test.mjs tests/e2e/procview.test.mjs tests/e2e/compare.test.mjs

e2e-big: $(BUILD)/probex $(WEB_STAMP) e2e-check-browser $(E2E_BIG)
	@mkdir -p $(E2E_ARTIFACTS)
	$(E2E_ENV) E2E_FIXTURE=$(E2E_BIG) node --test tests/e2e/zoom-big.mjs
