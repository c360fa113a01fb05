# Unit tests (cmocka, one binary per tests/unit/test_*.c) and root integration tests.
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))

$(BUILD)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS) -lcmocka -o $@

# T=NAME... (test_schema or schema) runs only those; an unknown name stops make at once.
UNIT_PICK := $(foreach t,$(T),$(BUILD)/tests/unit/test_$(patsubst test_%,%,$(t)))
UNIT_RUN  := $(if $(T),$(UNIT_PICK),$(UNIT_BINS))
ifneq ($(filter test-unit asan,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(UNIT_BINS),$(UNIT_RUN)),)
$(error no such unit test: $(notdir $(filter-out $(UNIT_BINS),$(UNIT_RUN))); available: $(notdir $(UNIT_BINS)))
endif
endif

test-unit: $(UNIT_RUN)
	@set -e; for t in $(UNIT_RUN); do echo "== $$t"; $$t; done

# Integration tests trace real programs and need root (CI runs as root).  T=NAME... runs
# only those (tests/integration/run.sh NAME... does the same, building what they need).
.PHONY: integration-build
integration-build: $(BUILD)/probex $(BUILD)/probex-test fixtures
test-integration: integration-build
	@BUILD=$(BUILD) tests/integration/run.sh $(T)

# Comments name only files that exist, and the README stays short (part of test-unit).
.PHONY: check-comments
check-comments:
	@scripts/check-comments.sh
test-unit: check-comments
