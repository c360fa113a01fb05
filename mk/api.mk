# Viewer API tests (owned by the viewer backend work).
test-api: $(BUILD)/probex
	@echo "test-api: no API tests yet"
