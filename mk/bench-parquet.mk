# make bench-parquet: the direct Parquet writer on 1.2M syscall-shaped rows, and DuckDB's
# COPY of the same table for comparison.  PQ_BENCH_ARGS passes options (see the source).
$(BUILD)/tools/parquet_bench: bench/parquet_bench.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS) -o $@

.PHONY: bench-parquet
bench-parquet: $(BUILD)/tools/parquet_bench
	$(BUILD)/tools/parquet_bench -d $(BUILD) $(PQ_BENCH_ARGS)
