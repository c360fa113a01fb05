# Viewer latency benchmark (bench/viewer_bench.mjs) on a synthetic trace generated once.
BENCH_EVENTS ?= 10000000
BENCH_TRACE  := $(BUILD)/bench/synth-$(BENCH_EVENTS).parquet

$(BENCH_TRACE): | $(BUILD)/probex
	@mkdir -p $(@D)
	$(BUILD)/probex synth -o $@ --events $(BENCH_EVENTS) --seed 1

.PHONY: bench-viewer
bench-viewer: $(BUILD)/probex $(BENCH_TRACE)
	node bench/viewer_bench.mjs --probex $(BUILD)/probex --trace $(BENCH_TRACE) \
		--events $(BENCH_EVENTS) --out $(BUILD)/bench/viewer-bench.txt

# Compare mode (--view NEW --base BASE): readiness against NEW alone and the differential
# flame graph's median, on two synthetic traces (bench/compare_bench.mjs).
COMPARE_EVENTS ?= 20000000
.PHONY: bench-compare
bench-compare: $(BUILD)/probex
	node bench/compare_bench.mjs --probex $(BUILD)/probex --events $(COMPARE_EVENTS) \
		--out $(BUILD)/bench/compare-bench.md
