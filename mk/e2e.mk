# Browser tests (owned by the web UI work).
test-e2e: $(BUILD)/probex
	@echo "test-e2e: no browser tests yet"
