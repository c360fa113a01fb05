# probex export --format pprof: the protobuf-c encoder for the pprof profile.proto that is
# vendored under src/export (Apache-2.0, from github.com/google/pprof), generated at build time.
$(BUILD)/gen/profile.pb-c.c $(BUILD)/gen/profile.pb-c.h: src/export/profile.proto | $(DEPS_STAMP)
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=src/export --c_out=$(BUILD)/gen $<

# Objects that include the generated header wait for it.
$(BUILD)/obj/export/pprof.o: $(BUILD)/gen/profile.pb-c.h
