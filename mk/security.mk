# Security tests: each attack a user allowed to `sudo probex` could try, asserted refused
# (tests/security/).  As root: they play sudo with a test user (created when missing).
#   make test-security          all of them
#   BUILD=build bash tests/security/t_viewer.sh   one (with PROBEX set, as run.sh does)
.PHONY: test-security
test-security: $(BUILD)/probex $(BUILD)/probex-test
	@BUILD=$(BUILD) tests/security/run.sh
