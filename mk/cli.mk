# probex sql / export / report on fixture traces (tests/cli); records one as root.
test-cli: $(BUILD)/probex
	@BUILD=$(BUILD) tests/cli/run.sh $(T)
