# Small programs the tests trace or symbolize: tests/fixtures/NAME.c / NAME.cpp → $(BUILD)/fixtures/NAME.
# Built with frame pointers and debug info, like the programs users are told to profile.
FIXTURE_C   := $(wildcard tests/fixtures/*.c)
FIXTURE_CXX := $(wildcard tests/fixtures/*.cpp)
FIXTURES    := $(patsubst tests/fixtures/%.c,$(BUILD)/fixtures/%,$(FIXTURE_C)) \
	       $(patsubst tests/fixtures/%.cpp,$(BUILD)/fixtures/%,$(FIXTURE_CXX))
FIXTURE_FLAGS := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread

$(BUILD)/fixtures/%: tests/fixtures/%.c
	@mkdir -p $(@D)
	$(CC) $(FIXTURE_FLAGS) $< -o $@

$(BUILD)/fixtures/%: tests/fixtures/%.cpp
	@mkdir -p $(@D)
	g++ $(FIXTURE_FLAGS) $< -o $@

fixtures: $(FIXTURES)
test-unit test-integration: $(FIXTURES)

# Built like distribution code (no frame pointers): its stacks need CFI unwinding.
$(BUILD)/fixtures/nofp: tests/fixtures/nofp.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer $< -o $@

$(BUILD)/fixtures/deepnofp: tests/fixtures/deepnofp.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer $< -o $@

$(BUILD)/fixtures/deepcxx: tests/fixtures/deepcxx.cpp
	@mkdir -p $(@D)
	g++ -O2 -g -fomit-frame-pointer $< -o $@

# The same, stripped (no .symtab, no DWARF) with its DWARF in a separate file found
# through .gnu_debuglink, and built without .eh_frame: its CFI is the .debug_frame in
# that file, as with distribution -dbgsym packages for objects without unwind tables.
$(BUILD)/fixtures/nofp_debuglink: tests/fixtures/nofp.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables $< -o $@.full
	objcopy --only-keep-debug $@.full $@.debug
	strip --strip-all -o $@.tmp $@.full
	objcopy --add-gnu-debuglink=$@.debug $@.tmp $@
	rm -f $@.tmp $@.full

fixtures: $(BUILD)/fixtures/nofp_debuglink

# Stripped of .symtab and DWARF (.eh_frame stays): with -rdynamic its functions keep
# names in .dynsym; without, frames are path+0xOFFSET.  Both unwind whole.
$(BUILD)/fixtures/nofp_dynsym: tests/fixtures/nofp.c
	@mkdir -p $(@D)
	$(CC) -O2 -fomit-frame-pointer -rdynamic $< -o $@.full
	strip --strip-all -o $@ $@.full
	rm -f $@.full

$(BUILD)/fixtures/nofp_stripped: tests/fixtures/nofp.c
	@mkdir -p $(@D)
	$(CC) -O2 -fomit-frame-pointer $< -o $@.full
	strip --strip-all -o $@ $@.full
	rm -f $@.full

fixtures: $(BUILD)/fixtures/nofp_dynsym $(BUILD)/fixtures/nofp_stripped
# t_unwind traces them.
test-integration: $(BUILD)/fixtures/nofp_debuglink $(BUILD)/fixtures/nofp_dynsym $(BUILD)/fixtures/nofp_stripped
