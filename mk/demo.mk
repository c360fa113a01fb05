# make demo: build, trace a bundled sample workload, serve the viewer on it.
DEMO_TRACE := $(BUILD)/demo.parquet
DEMO_PORT  ?= 8080

.PHONY: demo
demo: $(BUILD)/probex $(BUILD)/fixtures/workload
	@if [ "$$(id -u)" -ne 0 ]; then echo "make demo traces with eBPF and needs root: sudo make demo"; exit 1; fi
	rm -f $(DEMO_TRACE)
	$(BUILD)/probex -o $(DEMO_TRACE) -p $(DEMO_PORT) -- sh -c '\
		$(BUILD)/fixtures/workload 700 >/dev/null & \
		dd if=/dev/urandom bs=64k count=400 status=none | gzip -1 > /dev/null; \
		for i in 1 2 3 4 5; do ls -R /usr/include > /dev/null; done; wait'
