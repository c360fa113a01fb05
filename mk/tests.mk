# Unit tests (cmocka, one binary per tests/unit/test_*.c) and root integration tests.
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))

$(BUILD)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS) -lcmocka -o $@

test-unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

# Integration tests trace real programs and need root (CI runs as root).
test-integration: $(BUILD)/probex $(BUILD)/probex-test
	@BUILD=$(BUILD) tests/integration/run.sh

# Comments name only files that exist, and the README stays short (part of test-unit).
.PHONY: check-comments
check-comments:
	@scripts/check-comments.sh
test-unit: check-comments
