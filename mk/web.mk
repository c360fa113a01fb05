# Web UI: TypeScript bundled by esbuild (ECharts included: the page needs no network), built
# into $(BUILD)/web, typechecked with tsc, then embedded in the binary as a C array.
WEB_SRCS  := $(sort $(wildcard web/src/*.ts)) web/index.html web/style.css web/build.mjs web/tsconfig.json
WEB_STAMP := web/node_modules/.stamp
WEB_OUT   := $(BUILD)/web

# npm packages (pinned in web/package.json) come through the project's deps script.
$(WEB_STAMP): web/package.json | $(DEPS_STAMP)
	DEPS_DIR=$(DEPS_DIR) ./scripts/deps.sh

$(WEB_OUT)/.built: $(WEB_SRCS) $(WEB_STAMP)
	cd web && ./node_modules/.bin/tsc --noEmit -p .
	node web/build.mjs $(WEB_OUT)
	@touch $@

$(BUILD)/gen/web_assets.c: $(WEB_OUT)/.built scripts/embed-assets.mjs
	@mkdir -p $(@D)
	node scripts/embed-assets.mjs $(WEB_OUT) $@

web: $(BUILD)/gen/web_assets.c
