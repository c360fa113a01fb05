# Symbolizer fixtures beyond fixtures.mk's one-program-per-source: the same program as
# non-PIE, built by clang and lld, stripped, with a separate debug file, with a known or no
# build-id, under a path with spaces; and a shared library. Tests find them next to their own binary
# ($(BUILD)/tests/unit/ → $(BUILD)/fixtures/).
FXD := $(BUILD)/fixtures
SYM_FIXTURES := $(FXD)/libsymfx.so $(FXD)/sym_chain_nopie $(FXD)/sym_chain_stripped \
	$(FXD)/sym_chain_debuglink $(FXD)/sym_chain_knownid $(FXD)/sym_chain_noid \
	$(FXD)/sym_cxx_stripped $(FXD)/with\ space/sym\ chain $(FXD)/sym_chain_clang \
	$(FXD)/sym_chain_badlink $(FXD)/sym_chain_minidebug

$(FXD)/libsymfx.so: tests/fixtures/lib/symfx_lib.c
	@mkdir -p $(@D)
	$(CC) $(FIXTURE_FLAGS) -shared -fPIC $< -o $@

$(FXD)/sym_chain_nopie: tests/fixtures/sym_chain.c
	@mkdir -p $(@D)
	$(CC) $(FIXTURE_FLAGS) -fno-pie -no-pie $< -o $@

# clang emits no .debug_aranges (libdw 0.188 then finds no CU by itself) and lld puts the
# text segment at a vaddr that differs from its file offset.
$(FXD)/sym_chain_clang: tests/fixtures/sym_chain.c
	@mkdir -p $(@D)
	$(CLANG) $(FIXTURE_FLAGS) -fuse-ld=lld $< -o $@

# --build-id=0x…: a build-id the tests know in advance.
$(FXD)/sym_chain_knownid: tests/fixtures/sym_chain.c
	@mkdir -p $(@D)
	$(CC) $(FIXTURE_FLAGS) -Wl,--build-id=0x0123456789abcdeffedcba987654321000112233 $< -o $@

$(FXD)/sym_chain_noid: tests/fixtures/sym_chain.c
	@mkdir -p $(@D)
	$(CC) $(FIXTURE_FLAGS) -Wl,--build-id=none $< -o $@

# No DWARF, ELF symbol table only: names must come from .symtab.
$(FXD)/sym_chain_stripped: $(FXD)/sym_chain
	strip --strip-debug -o $@ $<

$(FXD)/sym_cxx_stripped: $(FXD)/sym_cxx
	strip --strip-debug -o $@ $<

# DWARF moved to a .debug file next to the binary, found through .gnu_debuglink.
$(FXD)/sym_chain_debuglink: $(FXD)/sym_chain
	objcopy --only-keep-debug $< $@.debug
	strip --strip-debug --strip-unneeded -o $@.tmp $<
	objcopy --add-gnu-debuglink=$@.debug $@.tmp $@
	rm -f $@.tmp

# A debuglink to another build's debug file: libdwfl must reject it (build-ids differ).
$(FXD)/sym_chain_badlink: $(FXD)/sym_chain_knownid $(FXD)/sym_chain_debuglink
	strip --strip-debug -o $@.tmp $<
	objcopy --add-gnu-debuglink=$(FXD)/sym_chain_debuglink.debug $@.tmp $@
	rm -f $@.tmp

# Fedora-style mini-debuginfo: everything stripped but .dynsym, and the function symbols
# .dynsym lacks in an xz-compressed ELF in .gnu_debugdata (as rpm's find-debuginfo makes it).
$(FXD)/sym_chain_minidebug: $(FXD)/sym_chain
	nm -D --format=posix --defined-only $< | awk '{ print $$1 }' | sort >$@.dyn
	nm --format=posix --defined-only $< | awk '$$2 ~ /^[Tt]$$/ { print $$1 }' | sort >$@.funcs
	comm -13 $@.dyn $@.funcs >$@.keep
	objcopy --only-keep-debug $< $@.mini
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=$@.keep $@.mini
	xz -f $@.mini
	strip --strip-all -o $@.tmp $<
	objcopy --add-section .gnu_debugdata=$@.mini.xz $@.tmp $@
	rm -f $@.tmp $@.mini.xz $@.dyn $@.funcs $@.keep

$(FXD)/with\ space/sym\ chain: $(FXD)/sym_chain
	@mkdir -p "$(FXD)/with space"
	cp "$<" "$@"

fixtures: $(SYM_FIXTURES)
test-unit: $(SYM_FIXTURES)

# Symbolization throughput: every call return address of libc (and of any FILES=...).
$(BUILD)/tools/usym_bench: tests/tools/usym_bench.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS) -o $@

.PHONY: bench-usym
bench-usym: $(BUILD)/tools/usym_bench
	$(BUILD)/tools/usym_bench $(or $(FILES),$(shell ldd /bin/true | awk '/libc.so/ {print $$3}'))
