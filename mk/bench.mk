# make bench: recorder overhead per workload, viewer latency, memory.  See bench/run.sh.
BENCH_BINS := $(BUILD)/bench/pagefault $(BUILD)/bench/deepstack

$(BUILD)/bench/%: bench/workloads/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer $< -o $@

.PHONY: bench bench-recorder bench-scale bench-big
bench-recorder: $(BUILD)/probex $(BENCH_BINS)
	@BUILD=$(BUILD) bench/run.sh

# Memory and throughput as traces grow (recorder 4M/20M events, synth 2M/20M rows, viewer
# at 20M events), next to their targets; bench-big adds a 100M-event viewer row (minutes).
bench-scale: $(BUILD)/probex
	@BUILD=$(BUILD) bench/scale.sh

bench-big: $(BUILD)/probex
	@BUILD=$(BUILD) SCALE_VIEWER="20000000 100000000" bench/scale.sh

bench: bench-recorder bench-viewer bench-scale
