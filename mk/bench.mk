# make bench: recorder overhead per workload, viewer latency, memory (bench/run.sh and
# the scripts beside it); doc/benchmarks.md shows the latest tables.
BENCH_BINS := $(BUILD)/bench/pagefault $(BUILD)/bench/deepstack $(BUILD)/bench/nofp $(BUILD)/bench/deeprec \
	      $(BUILD)/bench/pingpong \
	      $(BUILD)/bench/cpuclock $(BUILD)/bench/probecall

$(BUILD)/bench/%: bench/workloads/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread $< -o $@

# Like distribution code: no frame pointers, so its stacks need CFI unwinding.
$(BUILD)/bench/nofp: bench/workloads/nofp.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer $< -o $@

$(BUILD)/bench/deeprec: bench/workloads/deeprec.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer $< -o $@

.PHONY: bench bench-recorder bench-peers bench-burst bench-cbuild bench-scale bench-big bench-diff bench-probes \
	bench-python
bench-recorder: $(BUILD)/probex $(BENCH_BINS)
	@BUILD=$(BUILD) bench/run.sh

# The same workloads under strace, perf and bpftrace, in the same run (bench/peers.sh).
bench-peers: $(BUILD)/probex $(BENCH_BINS)
	@BUILD=$(BUILD) bench/peers.sh

# A 300-thread uname burst untraced, under probex (defaults, --lossless), perf trace -s
# and strace -f -c: wall time and the share of calls each kept (bench/burst.sh).
bench-burst: $(BUILD)/probex $(BUILD)/fixtures/burst
	@BUILD=$(BUILD) bench/burst.sh

# A parallel C build traced: finalize, resymbolize and the total against the untraced
# build (bench/cbuild.sh), and perf record + report on the same build.
bench-cbuild: $(BUILD)/probex
	@BUILD=$(BUILD) bench/cbuild.sh

# Memory and throughput as traces grow (recorder 4M/20M events, synth 2M/20M rows, viewer
# at 20M events), next to their targets; bench-big adds a 100M-event viewer row (minutes).
bench-scale: $(BUILD)/probex $(BUILD)/probex-test
	@BUILD=$(BUILD) bench/scale.sh

bench-big: $(BUILD)/probex $(BUILD)/probex-test
	@BUILD=$(BUILD) SCALE_VIEWER="20000000 100000000" bench/scale.sh

# --probe: cost per probed call against bpftrace and the empty-uprobe floor; start-up
# with 10 probes (bench/probes.sh).
bench-probes: $(BUILD)/probex $(BUILD)/bench/probecall
	@BUILD=$(BUILD) bench/probes.sh

# Python frames: a pure-Python loop untraced, under probex with and without Python frames,
# and under perf record -g (bench/python.sh).
bench-python: $(BUILD)/probex
	@BUILD=$(BUILD) bench/python.sh

# probex diff of two 20M-event synthetic traces: time and peak RSS (bench/diff.sh).
bench-diff: $(BUILD)/probex
	@BUILD=$(BUILD) bench/diff.sh

# The latest tables go into doc/benchmarks.md, between its bench:NAME markers.
bench: bench-recorder bench-peers bench-burst bench-cbuild bench-viewer bench-compare bench-scale bench-diff bench-probes \
	bench-python
	@scripts/bench-doc.sh $(BUILD)/bench doc/benchmarks.md
